"""Executors over real worker processes: a worker that dies costs one retry, never a count."""

import os

from pyrua_lab.evaluation import expand, parse_spec, run_eval
from pyrua_lab.evaluation.executors import LocalPoolExecutor, make_executor
from pyrua_lab.evaluation.store import read_records
import pytest

SPEC = {'tasks': ['pick_place'], 'layouts': ['0-3'],
        'interfaces': {'a': {'planner': 'script'}}}


def die_on_layout_one(job):
    """Stand in for an episode: the worker process dies on layout 1, first attempt."""
    if job.layout == 1 and job.attempt == 1:
        os._exit(3)
    return {**job.describe(), 'task': job.task, 'seed': job.seed, 'layout': job.layout,
            'end_reason': 'solved', 'success': True, 'wall_s': 0.0, 'llm_calls': 0,
            'input_tokens': 0, 'output_tokens': 0, 'cost_usd': 0.0, 'pid': os.getpid()}


@pytest.mark.slow
def test_a_dead_pool_worker_becomes_one_infra_error_and_one_retry(tmp_path):
    summary = run_eval(parse_spec(SPEC), tmp_path, LocalPoolExecutor(2), progress=False,
                       job_fn=die_on_layout_one)
    records = {r['layout']: r for r in read_records(tmp_path)}
    assert sorted(records) == [0, 1, 2, 3]
    assert records[1]['attempt'] == 2 and records[1]['success']
    assert summary.retried >= 1 and summary.tally.episodes == {'a': 4}
    again = run_eval(parse_spec(SPEC), tmp_path, LocalPoolExecutor(2), progress=False,
                     job_fn=die_on_layout_one)
    assert (again.skipped, again.ran) == (4, 0)


def test_unknown_executor_and_bad_worker_count_are_refused():
    with pytest.raises(ValueError, match="unknown executor 'threads'"):
        make_executor('threads')
    with pytest.raises(ValueError, match='--workers 0 vs minimum 1'):
        make_executor('pool', workers=0)
    with pytest.raises(ValueError, match='--ray-address goes with --executor ray'):
        make_executor('pool', ray_address='auto')
    assert len(expand(parse_spec(SPEC))) == 4

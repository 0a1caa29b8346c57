"""The result store: atomic records, resume, one retry after an infrastructure error."""

import json

from pyrua_lab.evaluation import expand, parse_spec, ResultStore
from pyrua_lab.evaluation.runner import infra_record
import pytest

SPEC = {'tasks': ['pick_place'], 'layouts': [0, 1],
        'interfaces': {'a': {'planner': 'script'}, 'b': {'planner': 'script'}}}


def _record(job, reason='solved'):
    record = infra_record(job, 'boom') if reason == 'infra_error' else {
        **job.describe(), 'end_reason': reason, 'success': reason == 'solved'}
    return record


def test_rerun_skips_finished_and_retries_infra_error_once(tmp_path):
    spec = parse_spec(SPEC)
    jobs = expand(spec)
    store = ResultStore(tmp_path)
    store.bind(spec)
    store.write(_record(jobs[0]))
    store.write(_record(jobs[1], 'infra_error'))
    store.write(_record(jobs[2].retry(), 'infra_error'))

    again = ResultStore(tmp_path)  # a new process reads the folder
    pending = again.pending(jobs)
    assert [(j.episode_id, j.attempt) for j in pending] == [
        (jobs[1].episode_id, 2), (jobs[3].episode_id, 1)]
    assert [r['episode_id'] for r in again.finished(jobs)] == [jobs[0].episode_id,
                                                               jobs[2].episode_id]


def test_records_are_whole_files_and_leave_no_temporaries(tmp_path):
    jobs = expand(parse_spec(SPEC))
    store = ResultStore(tmp_path)
    path = store.write(_record(jobs[0]))
    assert json.loads(path.read_text())['episode_id'] == jobs[0].episode_id
    assert sorted(p.name for p in (tmp_path / 'episodes').iterdir()) == [path.name]


def test_a_folder_refuses_a_spec_with_other_settings(tmp_path):
    ResultStore(tmp_path).bind(parse_spec(SPEC))
    ResultStore(tmp_path).bind(parse_spec({**SPEC, 'layouts': [0, 1, 2]}))  # more episodes: ok
    with pytest.raises(ValueError, match='budgets='):
        ResultStore(tmp_path).bind(parse_spec({**SPEC, 'budgets': {'max_cells': 3}}))


def test_a_corrupt_record_is_named(tmp_path):
    (tmp_path / 'episodes').mkdir()
    (tmp_path / 'episodes' / 'x.json').write_text('{"episode_id": ')
    with pytest.raises(ValueError, match=r'x\.json is not a JSON record'):
        ResultStore(tmp_path)

"""`pyrua eval` and `pyrua analyze` end to end on the twin, as a user runs them."""

import os
from pathlib import Path
import signal
import subprocess
import sys
import time

from pyrua_agent.cli import main
from pyrua_lab.evaluation.store import read_records
import pytest

SCRIPT_SPEC = """\
name: scripted
tasks: [pick_place, lift_object]
seeds: [0]
layouts: [0]
interfaces:
  script: {planner: script}
labels: {purpose: test}
"""
COMPARED = ('episode_id', 'task', 'seed', 'layout', 'interface', 'end_reason', 'success',
            'score', 'cells', 'llm_calls', 'input_tokens', 'labels')


def _spec(tmp_path, text, name='spec.yaml'):
    path = tmp_path / name
    path.write_text(text)
    return path


def _outcomes(folder):
    return {r['episode_id']: {k: r[k] for k in COMPARED} | {
        'calls': [c['calls'] for c in r['cell_log']]} for r in read_records(folder)}


@pytest.mark.slow
def test_pool_and_ray_give_the_same_results_for_the_same_spec(tmp_path, capsys):
    pytest.importorskip('ray', reason="Ray is the optional extra: pip install 'pyrua_lab[ray]'")
    spec = _spec(tmp_path, SCRIPT_SPEC)
    assert main(['eval', str(spec), '--out', str(tmp_path / 'pool'), '--workers', '2',
                 '--no-progress']) == 0
    assert main(['eval', str(spec), '--out', str(tmp_path / 'ray'), '--executor', 'ray',
                 '--workers', '2', '--no-progress']) == 0
    pool, ray = _outcomes(tmp_path / 'pool'), _outcomes(tmp_path / 'ray')
    assert len(pool) == 2 and pool == ray
    assert all(o['success'] and o['labels'] == {'purpose': 'test'} for o in pool.values())
    record = read_records(tmp_path / 'ray')[0]
    assert (Path(record['run_dir']) / 'transcript.jsonl').is_file()  # recorded as usual
    assert 'SR script 2/2 (100%)' in capsys.readouterr().out


@pytest.mark.slow
def test_kill_9_mid_run_then_rerun_counts_every_episode_once(tmp_path):
    spec = _spec(tmp_path, SCRIPT_SPEC.replace('layouts: [0]', 'layouts: [0, 1]'))
    out = tmp_path / 'out'
    command = [sys.executable, '-m', 'pyrua_agent.cli', 'eval', str(spec), '--out', str(out),
               '--no-progress']
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not list((out / 'episodes').glob('*.json')) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert process.poll() is None, 'the run ended before it could be killed'
        os.killpg(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    before = {p.name: p.read_text() for p in (out / 'episodes').glob('*.json')}
    assert 1 <= len(before) < 4
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f'{len(before)} already done, {4 - len(before)} run' in done.stdout
    after = {p.name: p.read_text() for p in (out / 'episodes').glob('*.json')}
    assert len(after) == 4 and all(after[name] == text for name, text in before.items())
    assert not [p for p in (out / 'episodes').iterdir() if p.suffix != '.json']


@pytest.mark.slow
def test_cost_model_spec_and_analyze_mark_the_tables(tmp_path, capsys):
    spec = _spec(tmp_path, """\
name: cost-model
tasks: [pick_place]
interfaces:
  code: {planner: code, plan: reference, endpoint: {model: gpt-5-mini}}
  tools: {planner: tools, plan: reference, endpoint: {model: gpt-5-mini}}
budgets: {max_llm_calls: 400, max_cells: 400}
""")
    out = tmp_path / 'cm'
    assert main(['eval', str(spec), '--out', str(out), '--no-progress']) == 0
    records = {r['interface']: r for r in read_records(out)}
    assert records['code']['success'] and records['tools']['success']
    assert records['code']['llm_calls'] < records['tools']['llm_calls']
    assert records['code']['cost_model'] and records['code']['cost_usd'] > 0
    # Each record says what it ran on: a run resumed over sittings may mix commits.
    provenance = records['code']['provenance']
    assert len(provenance['load_at_start']) == 3 and len(provenance['load_at_end']) == 3
    assert provenance['model_sha256'] is None  # a hosted model's weights are not ours to hash
    repo = Path(__file__).resolve().parents[4]
    if (repo / '.git').exists():
        head = subprocess.run(['git', '-C', str(repo), 'rev-parse', 'HEAD'], text=True,
                              capture_output=True, check=True).stdout.strip()
        assert provenance['commit'] == head
    assert main(['analyze', str(out)]) == 0
    tables = (out / 'analysis' / 'tables.md').read_text()
    assert '(cost model)' in tables and "not a measurement of a model's behaviour" in tables
    paired = (out / 'analysis' / 'paired_code_vs_tools.csv').read_text().splitlines()
    calls = next(line for line in paired if line.startswith('mean LLM calls'))
    assert float(calls.split(',')[-1]) == pytest.approx(
        records['code']['llm_calls'] / records['tools']['llm_calls'])
    assert str(out / 'analysis' / 'report.html') in capsys.readouterr().out
    # A results/ folder keeps the records alone (no recordings, no spec.json): it analyzes
    # to the same tables.
    kept = tmp_path / 'results' / 'cm'
    (kept / 'episodes').mkdir(parents=True)
    for path in (out / 'episodes').glob('*.json'):
        (kept / 'episodes' / path.name).write_text(path.read_text())
    assert main(['analyze', str(kept)]) == 0
    assert (kept / 'analysis' / 'tables.md').read_text() == tables


def test_eval_refuses_a_bad_spec_before_running(tmp_path, capsys):
    spec = _spec(tmp_path, 'tasks: [pick_plac]\ninterfaces: {s: {planner: script}}\n')
    assert main(['eval', str(spec), '--out', str(tmp_path / 'out')]) == 2
    assert "did you mean 'pick_place'" in capsys.readouterr().err
    assert not (tmp_path / 'out' / 'spec.json').exists()


def test_analyze_refuses_a_folder_without_records(tmp_path, capsys):
    assert main(['analyze', str(tmp_path)]) == 2
    assert 'has no episodes/ folder' in capsys.readouterr().err


def test_a_script_with_no_code_cell_is_refused_before_any_episode(tmp_path, capsys):
    empty = tmp_path / 'empty.py'
    empty.write_text('# %% only a comment\n# robo.home("left")\n\n')
    spec = _spec(tmp_path, SCRIPT_SPEC.replace('{planner: script}',
                                               f"{{planner: script, source: '{empty}'}}"))
    out = tmp_path / 'out'
    assert main(['eval', str(spec), '--out', str(out), '--no-progress']) == 2
    err = capsys.readouterr().err
    assert f"script.pick_place.s0.l0: script '{empty}' has no code cells" in err
    assert "(source of interface 'script')" in err
    assert not (out / 'episodes').exists() or not any((out / 'episodes').iterdir())

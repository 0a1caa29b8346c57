"""``pyrua train SPEC --out DIR``: the recipe end to end on the twin, with the tiny policy."""

import json

from pyrua_agent.cli import main
import pytest


@pytest.mark.slow
def test_pyrua_train_runs_the_recipe_on_the_twin_and_plots_its_curve(
        tiny_model, tmp_path, capsys):
    spec = tmp_path / 'spec.yaml'
    spec.write_text(
        f'model: {tiny_model}\n'
        'tasks: [pick_place, stack_blocks]\n'
        'layouts: 0-1\n'
        '# scaled down from the recipe: 2 instances x 2 rollouts, one iteration\n'
        'iterations: 1\ninstances_per_iteration: 2\nrollouts_per_instance: 2\n'
        'max_cells: 2\nmax_llm_calls: 2\nmax_new_tokens: 8\nparallel_episodes: 2\n')
    out = tmp_path / 'run'
    assert main(['train', str(spec), '--out', str(out)]) == 0
    printed = capsys.readouterr().out
    assert 'iteration 1: mean reward 0.000' in printed
    (record,) = [json.loads(line) for line in (out / 'train_log.jsonl').read_text().splitlines()]
    assert record['episodes'] == 4 and record['groups_dropped'] == 0
    assert record['tokens_generated'] > 0 and record['loss'] == 0.0  # no success: A = 0
    assert set(record['success_per_instance'].values()) == {0.0}
    assert (out / 'checkpoints' / 'iter-0001' / 'optimizer.pt').is_file()
    assert (out / 'checkpoints' / 'iter-0001' / 'tokenizer.json').is_file()
    episodes = [json.loads(line) for line in (out / 'episodes.jsonl').read_text().splitlines()]
    assert {e['task'] for e in episodes} <= {'pick_place', 'stack_blocks'}
    recorded = sorted((out / 'episodes' / 'iter-0001').glob('it0001-*/*/transcript.jsonl'))
    assert len(recorded) == 4, 'every training episode is recorded like any other episode'

    assert main(['train', str(spec), '--out', str(out)]) == 2
    assert 'pass --resume to continue it' in capsys.readouterr().err
    assert main(['train', '--plot', str(out)]) == 0
    svg = (out / 'curve.svg').read_text()
    assert svg.startswith('<svg') and 'polyline' in svg

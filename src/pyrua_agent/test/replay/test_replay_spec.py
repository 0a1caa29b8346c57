"""A replay is one ``run_episode_spec`` episode on the registered ``'replay'`` world."""

import dataclasses
import functools

from pyrua_agent.episode import EpisodeSpec, run_episode_spec
from pyrua_agent.recording import read_bag
from pyrua_agent.replay import BagPrimitives, open_recording, replay_episode
from pyrua_primitives.world import world_names
import pytest

FRAME_TOPICS = ('/pyrua/camera/', '/tf')
"""Camera frames and TF: a recorded replay leaves them in the replayed bag."""


def test_replay_runs_its_spec_through_run_episode_spec_and_records_like_pyrua_run(toy_run,
                                                                                  tmp_path):
    run_dir, recorded, prototypes = toy_run
    outcome = replay_episode(run_dir, primitives=BagPrimitives(read_bag(run_dir), prototypes))
    spec = outcome.spec
    assert (spec.world, spec.planner) == ('replay', 'replay') and 'replay' in world_names()
    assert spec.recording == spec.source == str(run_dir) and not spec.record
    assert (spec.task, spec.seed, spec.layout) == ('toy', 7, 2)
    assert spec.budgets.max_cells == 20  # the recorded episode's budget
    assert outcome.result.to_dict().keys() == recorded.to_dict().keys()

    # The same spec, recorded: the assembly writes the replay's bag like any episode's.
    bag = BagPrimitives(read_bag(run_dir), prototypes)
    again = run_episode_spec(dataclasses.replace(spec, record=True, runs_dir=str(tmp_path)),
                             opener=functools.partial(open_recording, primitives=bag))
    assert not bag.divergences
    assert again.run_dir is not None and again.run_dir.startswith(str(tmp_path))
    assert [r.output for r in again.cell_results] == [r.output for r in recorded.cell_results]
    ours, theirs = read_bag(again.run_dir), read_bag(run_dir)
    assert ours.start['config']['world'] == 'replay' and ours.end['end_reason'] == 'gave_up'
    assert [c['output'] for c in ours.cells] == [c['output'] for c in theirs.cells]
    assert [(g['name'], g['kwargs']) for g in ours.goals] == [
        (g['name'], g['kwargs']) for g in theirs.goals]
    assert set(ours.topic_counts) == {t for t in theirs.topic_counts
                                      if not t.startswith(FRAME_TOPICS)}
    assert ours.topic_counts['/pyrua/episode/event'] == 2  # EpisodeEvent: start and end


def test_changed_cell_diverges_through_the_assembly_hook(toy_run, tmp_path):
    run_dir, recorded, prototypes = toy_run
    script = tmp_path / 'cells.py'
    script.write_text(f'# %% only\nprint({recorded.cell_results[0].output!r}.upper())\n')
    seen = []
    outcome = replay_episode(run_dir, primitives=BagPrimitives(read_bag(run_dir), prototypes),
                             script=script, on_cell=lambda c, r, cmp: seen.append(cmp.status))
    assert outcome.spec.source == str(script) and seen == ['changed']
    assert [c.status for c in outcome.report.cells] == ['changed'] + ['missing'] * (
        recorded.cells - 1)


@pytest.mark.parametrize('world, recording', [('replay', None), ('twin', 'runs/episode')])
def test_spec_names_a_recording_exactly_for_the_replay_world(world, recording):
    with pytest.raises(ValueError, match="exactly when world is 'replay'"):
        EpisodeSpec(task='toy', world=world, recording=recording)

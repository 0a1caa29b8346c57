"""Replay recorded toy episodes against their bag: identical when unchanged, divergence shown."""

import shutil

import numpy as np
from pyrua_agent.recording import read_bag
from pyrua_agent.replay import BagPrimitives, replay_episode, write_script


def _replay(run_dir, prototypes, **kwargs):
    bag = BagPrimitives(read_bag(run_dir), prototypes)
    return replay_episode(run_dir, primitives=bag, **kwargs)


def test_unchanged_replay_reproduces_every_cell_output_exactly(toy_run):
    run_dir, recorded, prototypes = toy_run
    steps = []
    outcome = _replay(run_dir, prototypes,
                      on_cell=lambda cell, result, comparison: steps.append(comparison.status))
    report = outcome.report
    assert report.identical, report.text()
    assert steps == ['same'] * recorded.cells == [c.status for c in report.cells]
    assert not report.calls and not report.rebuild_notes
    assert outcome.result.end_reason == recorded.end_reason == 'gave_up'
    for replayed, original in zip(outcome.result.cell_results, recorded.cell_results,
                                  strict=True):
        assert replayed.output == original.output
        assert replayed.error == original.error
        assert [c.result_repr for c in replayed.calls] == [c.result_repr for c in original.calls]
        assert len(replayed.images) == len(original.images)
        for ours, theirs in zip(replayed.images, original.images, strict=True):
            np.testing.assert_array_equal(ours.pixels, theirs.pixels)
    assert 'identical to the recording' in report.text()


def test_changed_cell_reports_divergence_at_that_cell_and_keeps_earlier_cells(toy_run,
                                                                              tmp_path):
    run_dir, recorded, prototypes = toy_run
    script = write_script(run_dir, tmp_path / 'cells.py')
    text = script.read_text()
    assert text.count('(recorded cell ') == recorded.cells and '# %% [markdown]' in text
    script.write_text(text.replace('(0.1, 0.0, 0.5)', '(0.1, 0.0, 0.6)'))
    outcome = _replay(run_dir, prototypes, script=script)
    report = outcome.report
    assert [c.status for c in report.cells] == ['same'] * 3 + ['changed'] + ['same'] * 4
    assert report.first_divergent_cell == 4 and not report.identical
    assert report.cells[3].code_changed and report.cells[3].line == 1
    assert report.cells[3].recorded_line.startswith('MoveResult(reached=False')
    (call,) = report.calls
    assert (call.cell, call.call) == (4, 1)
    assert 'xyz=[0.1, 0.0, 0.6] vs recorded [0.1, 0.0, 0.5]' in call.action
    output = outcome.result.cell_results[3].output
    assert 'ReplayDivergence' in output and 'is call 1 of cell 4' in output
    text = report.text()
    assert 'cell 4: output differs (code changed) at line 1' in text
    assert 'DIVERGED: first at cell 4' in text


def test_unmatched_image_gets_the_nearest_recorded_frame_and_is_reported(toy_run, tmp_path):
    run_dir, recorded, prototypes = toy_run
    script = write_script(run_dir, tmp_path / 'cells.py')
    script.write_text(script.read_text().replace(
        "print(robo.close_gripper('left'))",
        "robo.show('head')\ntry:\n    robo.show('left_wrist')\nexcept Exception as exc:\n"
        "    print(type(exc).__name__)\nprint(robo.close_gripper('left'))"))
    outcome = _replay(run_dir, prototypes, script=script)
    shown, refused = outcome.report.calls
    assert (shown.cell, shown.call) == (refused.cell, refused.call) == (5, 1)
    # The last head frame before this point: the one locate captured in cell 4.
    assert shown.action.startswith('returned the recorded head frame of cell 4')
    assert refused.action == ('raised ReplayDivergence: another primitive: close_gripper vs '
                              'image')
    cell = outcome.result.cell_results[4]
    recorded_output = recorded.cell_results[4].output
    assert cell.output == '[image 1: head]\nPrimitiveFailed\n' + recorded_output
    frames = read_bag(run_dir).frames
    nearest = [f for f in frames if f.cell == 4 and f.camera == 'head'][-1]
    np.testing.assert_array_equal(cell.images[0].pixels, nearest.rgb)
    assert [c.status for c in outcome.report.cells][4:] == ['changed', 'same', 'same', 'same']


def test_success_guard_stop_and_solved_end_replay_as_recorded(toy_replay, tmp_path):
    cells = ("print(robo.move_to('left', [0.1, 0.0, 0.9]))",
             "robo.move_to('left', [0.1, 0.0, 0.95])\nrobo.move_to('left', [0.1, 0.0, 1.0])\n"
             "print('not reached')")
    recorded, station = toy_replay.record(tmp_path / 'episode', cells=cells, target=2)
    assert recorded.end_reason == 'solved'
    assert recorded.cell_results[-1].stopped_reason == 'task_complete'
    outcome = _replay(tmp_path / 'episode', toy_replay.Station(None).primitives())
    assert outcome.report.identical, outcome.report.text()
    assert outcome.result.end_reason == 'solved' and outcome.result.success
    assert outcome.result.score == 1.0
    assert outcome.result.cell_results[-1].stopped_reason == 'task_complete'


def test_bag_of_a_killed_writer_is_repaired_and_replayed(toy_run, tmp_path):
    run_dir, recorded, prototypes = toy_run
    copy = tmp_path / 'killed'
    shutil.copytree(run_dir, copy)
    (copy / 'bag' / 'metadata.yaml').unlink()
    outcome = _replay(copy, prototypes)
    assert all(c.status == 'same' for c in outcome.report.cells)
    assert any('repaired' in note for note in outcome.report.notes)

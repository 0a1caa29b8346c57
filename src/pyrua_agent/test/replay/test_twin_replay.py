"""Record a twin episode and replay it against its bag: identical outputs, then one change."""

import numpy as np
from pyrua_agent.cli import main
from pyrua_agent.episode import EpisodeSpec, open_twin_world, run_episode_spec
from pyrua_agent.episode import run_recorded_episode
from pyrua_agent.planners.percent import parse_percent
from pyrua_agent.planners.script import ScriptPlanner
from pyrua_agent.recording import Recorder
from pyrua_agent.replay import replay_episode, write_script
import pytest

PROGRAM = """
# %% state
print(instruction)
robo.show('head', 'the table')
block = robo.locate('blue block')
print(block)
print(robo.image('left_wrist').shape)
p = robo.pose('left')
print(p)
print(robo.joints('right'))
print(robo.camera_meta('head'))
print(robo.back_project('head', 320, 240))
# %% move
m = robo.move_to('left', [p.position_m[0] + 0.05, p.position_m[1] + 0.05, 0.9])
print(m)
print(m.final_m, m.error_m)
print(robo.open_gripper('left'))
print(robo.close_gripper('left'))
print(robo.wait(0.2))
# %% home
print(robo.home('left'))
print(robo.pose('left'))
# %% misuse
robo.move_to('lft', [0.0, 0.0, 1.0])
"""


@pytest.fixture(scope='module')
def twin_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp('twin') / 'episode'
    recorder = Recorder(run_dir)
    world, twin = open_twin_world('pick_place', 0, 0, observer=recorder)
    try:
        result = run_recorded_episode(world, ScriptPlanner(parse_percent(PROGRAM)), recorder,
                                      config={'task': 'pick_place', 'seed': 0, 'layout': 0})
    finally:
        twin.close()
    return run_dir, result


@pytest.mark.slow
def test_twin_episode_replays_with_identical_cell_outputs(twin_run):
    run_dir, recorded = twin_run
    assert recorded.cells == 5 and recorded.cell_results[4].error == 'ValueError'
    outcome = replay_episode(run_dir)
    assert outcome.report.identical, outcome.report.text()
    assert [r.output for r in outcome.result.cell_results] == [
        r.output for r in recorded.cell_results]
    assert outcome.result.end_reason == recorded.end_reason
    shown = outcome.result.cell_results[1].images[0].pixels
    np.testing.assert_array_equal(shown, recorded.cell_results[1].images[0].pixels)


@pytest.mark.slow
def test_twin_replay_with_a_changed_move_diverges_at_that_cell(twin_run, tmp_path):
    run_dir, recorded = twin_run
    script = write_script(run_dir, tmp_path / 'cells.py')
    script.write_text(script.read_text().replace('p.position_m[1] + 0.05', 'p.position_m[1]'))
    report = replay_episode(run_dir, script=script).report
    assert [c.status for c in report.cells] == ['same', 'same', 'changed', 'same', 'same'], \
        report.text()
    assert report.calls, report.text()
    assert report.calls[0].cell == 3 and 'xyz=' in report.calls[0].action


@pytest.mark.slow
def test_registered_replay_world_replays_the_twin_episode_on_its_own(twin_run):
    run_dir, recorded = twin_run
    spec = EpisodeSpec(task='pick_place', world='replay', recording=str(run_dir),
                       planner='replay', source=str(run_dir), record=False)
    result = run_episode_spec(spec)  # world 'replay' over the library's prototypes
    assert [r.output for r in result.cell_results] == [r.output for r in recorded.cell_results]
    assert result.end_reason == recorded.end_reason and result.planner == 'replay'


@pytest.mark.slow
def test_pyrua_replay_command_reports_identical_then_the_divergence(twin_run, tmp_path,
                                                                    capsys):
    run_dir, _ = twin_run
    assert main(['replay', str(run_dir)]) == 0
    assert 'identical to the recording' in capsys.readouterr().out
    script = tmp_path / 'cells.py'
    assert main(['replay', str(run_dir), '--export', str(script)]) == 0
    script.write_text(script.read_text().replace('p.position_m[1] + 0.05', 'p.position_m[1]'))
    assert main(['replay', str(run_dir), '--script', str(script)]) == 1
    out = capsys.readouterr().out
    assert '[changed vs the recording]' in out and 'DIVERGED: first at cell 3' in out

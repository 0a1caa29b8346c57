"""The toy world registers through pyrua_lab's entry point and runs a scripted episode."""

from importlib import metadata

from pyrua_agent.episode import EpisodeSpec, run_episode_spec
from pyrua_primitives.world import world_entry, world_of


def test_the_toy_world_is_pyrua_labs_entry_point_and_owns_its_task():
    (point,) = [p for p in metadata.entry_points(group='pyrua.worlds') if p.name == 'toy']
    assert (point.value, point.dist.name) == ('pyrua_lab.training.toy:TOY', 'pyrua_lab')
    assert world_entry('toy').opener.__module__ == 'pyrua_lab.training.toy'
    assert world_of('press_red') == 'toy'


def test_a_scripted_episode_in_the_toy_world_is_solved_by_pressing_red_first(tmp_path):
    script = tmp_path / 'press.py'
    script.write_text("# %%\nprint(robo.press('red'))\n# %%\nprint(robo.press('blue'))\n")
    result = run_episode_spec(EpisodeSpec(task='press_red', world='toy', planner='script',
                                          source=str(script), record=False))
    assert result.success and result.cells >= 1, result

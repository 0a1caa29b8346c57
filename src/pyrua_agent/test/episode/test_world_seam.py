"""The World seam: a world hands over its parts; only ``run_episode_spec`` wires the recorder."""

from pyrua_agent.episode import EpisodeSpec, run_episode_spec
from pyrua_agent.recording import read_bag
from pyrua_primitives.world import (
    EvaluatorHooks,
    register_world,
    world_of,
    WorldEntry,
    WorldParts,
)

PROGRAM = "# %% press\nprint(robo.press('blue'))\nprint(robo.press('red'))\n"


class Shelf:
    """A world of one acting primitive whose evaluator counts the acting calls it saw."""

    def __init__(self) -> None:
        self.pressed: list[str] = []
        self.observed = 0
        self.closed = 0

    def press(self, color: str) -> str:
        """Press one button."""
        self.pressed.append(color)
        return f'pressed {color}'

    def observe(self) -> None:
        self.observed += 1

    def close(self) -> None:
        self.closed += 1


SHELVES: list[Shelf] = []


def _open_shelf(spec) -> WorldParts:
    shelf = Shelf()
    SHELVES.append(shelf)
    hooks = EvaluatorHooks(success=lambda: shelf.pressed[-1:] == ['red'],
                           score=lambda: float('red' in shelf.pressed),
                           after_acting=shelf.observe)
    return WorldParts(instruction='press red last', hooks=hooks,
                      providers={'press': shelf.press}, acting=('press',),
                      robot_state='one shelf of buttons', on_close=shelf.close)


SHELF = register_world(WorldEntry(name='test_seam_shelf', opener=_open_shelf,
                                  owns=lambda task: task == 'seam_task'))


def test_a_registered_world_runs_recorded_through_run_episode_spec(tmp_path):
    program = tmp_path / 'press.py'
    program.write_text(PROGRAM)
    spec = EpisodeSpec(task='seam_task', world=world_of('seam_task'), planner='script',
                       source=str(program), record=True, runs_dir=str(tmp_path / 'runs'),
                       sandbox='none')
    result = run_episode_spec(spec)
    shelf = SHELVES[-1]
    assert result.success and shelf.pressed == ['blue', 'red']
    assert shelf.observed == 2  # the evaluator hook after each acting call, from the assembly
    assert shelf.closed == 1
    bag = read_bag(result.run_dir)
    # The world wrapped nothing: the recorder got every goal and result from the assembly.
    assert [(g['name'], g['kwargs']) for g in bag.goals] == [('press', {'color': 'blue'}),
                                                             ('press', {'color': 'red'})]
    assert bag.start['instruction'] == 'press red last'

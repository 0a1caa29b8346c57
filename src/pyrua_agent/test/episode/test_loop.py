"""The episode loop with the script planner over plain host-side primitives (no robot)."""

from pyrua_agent.budgets import BudgetConfig
from pyrua_agent.episode import EpisodeWorld, run_episode
from pyrua_agent.planners.base import TaskCard
from pyrua_agent.planners.percent import parse_percent
from pyrua_agent.planners.script import ScriptPlanner
import pytest


class Counter:
    """A tiny world: `bump` acts, and the task succeeds once the count reaches a target."""

    def __init__(self, target):
        self.count = 0
        self.target = target

    def bump(self, n: int = 1) -> int:
        """Add ``n`` and return the new count."""
        self.count += n
        return self.count

    def peek(self) -> int:
        """Return the count."""
        return self.count

    def world(self, **overrides):
        kwargs = {
            'task': 'count', 'seed': 0, 'layout': 0,
            'card': TaskCard(task='count', instruction='count to target', robot_state=''),
            'primitives': {'bump': self.bump, 'peek': self.peek}, 'acting': ('bump',),
            'success': lambda: self.count >= self.target,
            'score': lambda: min(1, self.count / 3),
        }
        kwargs.update(overrides)
        return EpisodeWorld(**kwargs)


def _script(*cells):
    return ScriptPlanner(parse_percent(''.join(f'# %%\n{c}\n' for c in cells)))


def test_script_episode_ends_solved_when_the_task_succeeds():
    world = Counter(target=2)
    result = run_episode(world.world(), _script('robo.bump()', 'robo.bump()', 'print("never")'))
    assert result.end_reason == 'solved'
    assert result.success is True and result.score == 1.0
    assert result.cells == 2
    record = result.to_dict()
    for key in ('task', 'seed', 'layout', 'planner', 'end_reason', 'success', 'score', 'cells',
                'llm_calls', 'input_tokens', 'cached_input_tokens', 'output_tokens',
                'cost_usd', 'wall_s'):
        assert key in record
    assert record['llm_calls'] == 0


def test_script_that_reads_instruction_gets_it_from_a_card_cell():
    world = Counter(target=99)
    result = run_episode(world.world(), _script('print(instruction.upper())'))
    assert result.cells == 2 and result.cell_results[1].output == 'COUNT TO TARGET\n'


def test_script_that_runs_out_of_cells_gives_up_with_partial_score():
    world = Counter(target=5)
    result = run_episode(world.world(), _script('robo.bump()', 'robo.bump()'))
    assert result.end_reason == 'gave_up'
    assert result.success is False
    assert result.score == pytest.approx(2 / 3)


def test_cell_budget_ends_the_episode():
    world = Counter(target=99)
    result = run_episode(world.world(), _script(*['robo.bump()'] * 5),
                         budgets=BudgetConfig(max_cells=3))
    assert result.end_reason == 'cell_budget'
    assert result.cells == 3 and world.count == 3
    assert '3 cells run vs budget 3' in result.end_detail


def test_success_guard_stops_the_cell_before_the_next_acting_call():
    world = Counter(target=1)
    result = run_episode(world.world(), _script('robo.bump(); robo.bump(); print("af" + "ter")'))
    assert world.count == 1
    assert result.cell_results[0].stopped_reason == 'task_complete'
    assert 'after' not in result.cell_results[0].output
    assert result.end_reason == 'solved'


@pytest.mark.slow
@pytest.mark.slow
def test_wall_clock_cancels_a_running_cell():
    world = Counter(target=99)
    # The clock starts before the worker process does; on a busy host (load 10-20 on two
    # cores) starting it took several seconds, so 1 s ended the episode before the cell ran.
    result = run_episode(world.world(), _script('import time\nwhile True: time.sleep(0.05)'),
                         budgets=BudgetConfig(wall_clock_s=6.0))
    assert result.end_reason == 'wall_clock'
    assert result.cell_results[-1].stopped_reason == 'episode_cancelled'

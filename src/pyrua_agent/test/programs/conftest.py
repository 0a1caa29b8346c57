"""Fixture for the reference-program tests: run a bundled program on a twin layout."""

from pyrua_agent.episode import bundled_program, open_twin_world, run_episode
from pyrua_agent.planners.script import ScriptPlanner
import pytest


@pytest.fixture
def assert_solved():
    """Return a check that the task's bundled program solves seed 0, ``layout``, cleanly."""
    def check(task: str, layout: int) -> None:
        planner = ScriptPlanner.from_file(bundled_program(task))
        world, twin = open_twin_world(task, 0, layout)
        try:
            result = run_episode(world, planner)
        finally:
            twin.close()
        log = '\n'.join(r.output for r in result.cell_results)
        assert result.success, f'{task} layout {layout}: {result.end_reason}\n{log[-3000:]}'
        assert result.end_reason == 'solved'
        assert result.score == pytest.approx(1.0)
        assert not any(r.error for r in result.cell_results), log[-3000:]

    return check

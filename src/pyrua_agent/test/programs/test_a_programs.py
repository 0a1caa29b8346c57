"""End-to-end: the bundled reference programs solve fixed layouts of their tasks on the twin."""

from pyrua_agent.cli import bundled_program
from pyrua_agent.episode import run_episode
from pyrua_agent.planners.script import ScriptPlanner
from pyrua_agent.world import open_twin_world
import pytest


def _solve(task: str, layout: int):
    planner = ScriptPlanner.from_file(bundled_program(task))
    world, twin = open_twin_world(task, 0, layout)
    try:
        return run_episode(world, planner)
    finally:
        twin.close()


def _assert_solved(task: str, layout: int) -> None:
    result = _solve(task, layout)
    log = '\n'.join(r.output for r in result.cell_results)
    assert result.success, f'{task} layout {layout}: {result.end_reason}\n{log[-3000:]}'
    assert result.end_reason == 'solved'
    assert result.score == pytest.approx(1.0)
    assert not any(r.error for r in result.cell_results), log[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 26])
def test_pick_place_program_puts_the_block_in_the_named_bowl(layout):
    _assert_solved('pick_place', layout)


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 27])
def test_lift_object_program_lifts_the_block_10_cm_and_holds_it(layout):
    _assert_solved('lift_object', layout)


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 25])
def test_push_to_zone_program_pushes_the_block_into_the_zone(layout):
    _assert_solved('push_to_zone', layout)


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 1])
def test_stack_blocks_program_stacks_within_tolerance(layout):
    _assert_solved('stack_blocks', layout)


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 1])
def test_place_on_marker_program_places_within_1_cm(layout):
    _assert_solved('place_on_marker', layout)


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 3])
def test_insert_peg_program_inserts_the_peg_into_the_white_fixture(layout):
    _assert_solved('insert_peg', layout)

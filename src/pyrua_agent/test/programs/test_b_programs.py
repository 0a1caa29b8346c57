"""End-to-end: the Long-Horizon, Memory and Open reference programs solve fixed layouts."""

from pyrua_agent.cli import bundled_program
from pyrua_agent.episode import run_episode
from pyrua_agent.planners.script import ScriptPlanner
from pyrua_agent.world import open_twin_world
import pytest


def _assert_program_solves(task: str, layout: int) -> None:
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


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 9])
def test_press_button_program_presses_only_the_named_button(layout):
    _assert_program_solves('press_button', layout)


@pytest.mark.slow
def test_handover_program_passes_the_block_to_the_right_arm_and_into_the_bowl():
    _assert_program_solves('handover', 0)


@pytest.mark.slow
def test_restore_block_program_returns_the_block_within_15_mm_of_its_start():
    _assert_program_solves('restore_block', 3)


@pytest.mark.slow
@pytest.mark.parametrize('layout', [4, 5])
def test_swap_blocks_program_exchanges_both_blocks_within_2_cm(layout):
    _assert_program_solves('swap_blocks', layout)


@pytest.mark.slow
def test_sort_by_color_program_puts_all_four_blocks_in_their_bowls():
    _assert_program_solves('sort_by_color', 3)


@pytest.mark.slow
def test_stack_three_program_stacks_the_blocks_in_the_named_order():
    _assert_program_solves('stack_three', 8)

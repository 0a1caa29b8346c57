"""End-to-end: the Long-Horizon, Memory and Open reference programs solve fixed layouts."""

import pytest


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 9])
def test_press_button_program_presses_only_the_named_button(layout, assert_solved):
    assert_solved('press_button', layout)


@pytest.mark.slow
def test_handover_program_passes_the_block_to_the_right_arm_and_into_the_bowl(assert_solved):
    assert_solved('handover', 0)


@pytest.mark.slow
def test_restore_block_program_returns_the_block_within_15_mm_of_its_start(assert_solved):
    assert_solved('restore_block', 3)


@pytest.mark.slow
@pytest.mark.parametrize('layout', [4, 5])
def test_swap_blocks_program_exchanges_both_blocks_within_2_cm(layout, assert_solved):
    assert_solved('swap_blocks', layout)


@pytest.mark.slow
def test_sort_by_color_program_puts_all_four_blocks_in_their_bowls(assert_solved):
    assert_solved('sort_by_color', 3)


@pytest.mark.slow
def test_stack_three_program_stacks_the_blocks_in_the_named_order(assert_solved):
    assert_solved('stack_three', 8)

"""End-to-end: the bundled reference programs solve fixed layouts of their tasks on the twin."""

import pytest


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 26])
def test_pick_place_program_puts_the_block_in_the_named_bowl(layout, assert_solved):
    assert_solved('pick_place', layout)


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 27])
def test_lift_object_program_lifts_the_block_10_cm_and_holds_it(layout, assert_solved):
    assert_solved('lift_object', layout)


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 25])
def test_push_to_zone_program_pushes_the_block_into_the_zone(layout, assert_solved):
    assert_solved('push_to_zone', layout)


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 1])
def test_stack_blocks_program_stacks_within_tolerance(layout, assert_solved):
    assert_solved('stack_blocks', layout)


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 1])
def test_place_on_marker_program_places_within_1_cm(layout, assert_solved):
    assert_solved('place_on_marker', layout)


@pytest.mark.slow
@pytest.mark.parametrize('layout', [0, 3])
def test_insert_peg_program_inserts_the_peg_into_the_white_fixture(layout, assert_solved):
    assert_solved('insert_peg', layout)

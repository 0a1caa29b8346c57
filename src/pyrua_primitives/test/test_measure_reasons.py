"""robo.measure says why it fell back, and looks past an arm that hides the object (issue 24)."""

from pyrua_primitives.library import PrimitiveLibrary
from pyrua_sim.twin import load_twin
import pytest

TABLE_Z = 0.765


def test_measure_moves_an_arm_that_hides_a_bowl_home_and_finds_it():
    # Seed 555 layout 10: the right arm hovering 10 cm over the purple bowl (as after placing
    # a block in it) cuts it in two for the head camera; before issue 24 measure returned
    # found=False (two 'bowl'-like regions too small) and said nothing about the arm.
    with load_twin('sort_by_color', 555, 10) as twin:
        lib = PrimitiveLibrary(twin.station)
        bowl = twin.evaluator.object_poses()['obj/purple_bowl'][:2]
        assert lib.move_to('right', [*bowl, TABLE_Z + 0.1], max_tilt=0.6).reached
        assert not lib.locate('purple bowl').found
        pinned = lib.measure('purple bowl', 'left')  # the right arm may not move
        assert not pinned.found
        assert pinned.reason.endswith('; the right arm is out over the table and may hide it '
                                      "from the head camera: robo.home('right') and look again")
        found = lib.measure('purple bowl', 'right')
        assert found.found and found.height_m == pytest.approx(0.04, abs=0.01)
        assert found.note.startswith("found after robo.home('right'): that arm hid it")


def test_measure_with_the_arm_that_holds_the_object_says_its_wrist_cannot_look():
    with load_twin('lift_object', 0, 0) as twin:
        lib = PrimitiveLibrary(twin.station)
        block = lib.measure('purple block', 'left')
        x, y, _ = block.position_m
        lib.move_to('left', [x, y, TABLE_Z + 0.1], block.heading_rad)
        lib.move_to('left', [x, y, TABLE_Z + 0.025], block.heading_rad, descend=True)
        assert lib.close_gripper('left').held
        assert lib.move_to('left', [x, y, TABLE_Z + 0.1]).reached
        held = lib.measure('purple block', 'left')
        assert held.found and held.height_m is None
        assert held.note.startswith("'purple block' is in the left gripper: its own wrist "
                                    'camera cannot measure what it holds')
        assert "robo.pose('left').position_m" in held.note


def test_a_block_in_a_bowl_of_its_colour_is_said_to_merge_with_it():
    with load_twin('sort_by_color', 0, 0) as twin:
        lib = PrimitiveLibrary(twin.station)
        bowl = twin.evaluator.object_poses()['obj/blue_bowl'][:2]
        for name, dx in (('obj/blue_block_0', -0.025), ('obj/blue_block_1', 0.025)):
            twin.evaluator.set_object_pose(name, (bowl[0] + dx, bowl[1], TABLE_Z + 0.026))
        assert lib.locate_all('blue block') == []
        gone = lib.locate('blue block')
        assert not gone.found
        assert gone.reason.endswith('; a blue block inside a bowl of its colour merges with '
                                    'the bowl')
        assert lib.measure('blue bowl').found


def test_a_yellow_bowl_is_not_an_orange_bowl():
    with load_twin('handover', 555, 17) as twin:  # one yellow bowl, one orange block
        lib = PrimitiveLibrary(twin.station)
        assert lib.locate_all('orange bowl') == []
        (bowl,) = lib.locate_all('bowl')
        assert bowl.colour == 'yellow'
        assert [b.colour for b in lib.locate_all('block')] == ['orange']


def test_measure_carries_a_held_block_home_when_its_arm_hides_the_bowl():
    # Issue 31 item 4, seed 0 layout 1: the right arm has just closed on the purple block at
    # (0.126, -0.236) and its links hide the purple bowl from the head camera (a crescent of
    # narrowest 56 mm). Before, measure('purple bowl', 'right') did not move a holding arm
    # and returned found=False; now that arm goes home carrying the block, and says so.
    with load_twin('sort_by_color', 0, 1) as twin:
        lib = PrimitiveLibrary(twin.station)
        block = lib.measure('leftmost purple block', 'right')
        x, y, z = block.position_m
        assert lib.move_to('right', [x, y, TABLE_Z + 0.08], block.heading_rad).reached
        assert lib.move_to('right', [x, y, z + 0.005], block.heading_rad, descend=True).reached
        assert lib.close_gripper('right').held
        hidden = lib.locate('purple bowl')
        assert not hidden.found and '(narrowest ' in hidden.reason
        bowl = lib.measure('purple bowl', 'right')
        assert bowl.found and bowl.height_m == pytest.approx(0.04, abs=0.01)
        truth = twin.evaluator.object_poses()['obj/purple_bowl'][:2]
        assert all(abs(p - t) <= b for p, t, b in zip(bowl.position_m, truth, bowl.bound_m))
        assert bowl.note.startswith("found after robo.home('right'): that arm hid it from the "
                                    'head camera; the right arm still holds what it held')
        assert lib.pose('right').held


def test_two_alike_views_of_a_whole_bowl_far_out_do_not_measure_it_flat():
    # Issue 31, handover seed 529 layout 4: the head and the homed left arm's wrist camera
    # look at the green bowl far out on the right from alike directions; their hull fit a
    # 4 mm prism of 201 x 201 mm (the low height was not checked), refused against 130 mm:
    # locate and measure returned found=False. Now such a height is not measured: the head's
    # bound is reported, and measure's wrist view from above measures the whole bowl.
    with load_twin('handover', 529, 4) as twin:
        lib = PrimitiveLibrary(twin.station)
        truth = twin.evaluator.object_poses()['obj/green_bowl'][:2]
        rough = lib.locate('green bowl', ['head', 'left_wrist'])
        assert rough.found and rough.height_m is None and rough.height_source == 'none'
        assert all(abs(p - t) <= b for p, t, b in zip(rough.position_m, truth, rough.bound_m))
        bowl = lib.measure('green bowl', 'right')
        assert bowl.found and bowl.height_m == pytest.approx(0.04, abs=0.01)
        assert all(abs(p - t) <= b for p, t, b in zip(bowl.position_m, truth, bowl.bound_m))

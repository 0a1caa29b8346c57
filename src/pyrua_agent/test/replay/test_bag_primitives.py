"""Bag primitives answer from the recording only, cell by cell, and refuse anything else."""

from pyrua_agent.recording import read_bag
from pyrua_agent.replay import bag_world, BagPrimitives, ReplayDivergence
from pyrua_primitives.results import MoveResult
import pytest


def test_a_cell_answers_its_recorded_calls_in_order_and_refuses_others(toy_run):
    run_dir, recorded, prototypes = toy_run
    bag = BagPrimitives(read_bag(run_dir), prototypes)
    move = bag.primitives()['move_to']
    bag.start_cell(4)
    refused = move('left', (0.1, 0.0, 0.5))
    assert type(refused) is MoveResult and not refused.reached
    assert repr(refused) == recorded.cell_results[3].calls[0].result_repr
    with pytest.raises(ReplayDivergence, match=r"robo.move_to\('left', \(0.1, 0.0, 0.5\)\) is "
                       r'call 2 of cell 4 vs robo.locate\(query=.blue bowl.\) \(another '
                       r'primitive: locate vs move_to\) in the recording'):
        move('left', (0.1, 0.0, 0.5))
    assert bag.diverged and bag.divergences[0].cell == 4


def test_bad_arguments_raise_the_type_error_the_recorded_run_raised(toy_run):
    run_dir, recorded, prototypes = toy_run
    bag = BagPrimitives(read_bag(run_dir), prototypes)
    with pytest.raises(TypeError, match=r'ToyStation.move_to\(\) missing 1 required '
                                        r"positional argument: 'xyz'"):
        bag.primitives()['move_to']('left')
    assert not bag.diverged


def test_bag_world_carries_the_recorded_task_card(toy_run):
    run_dir, recorded, prototypes = toy_run
    recording = read_bag(run_dir)
    world, bag = bag_world(recording, BagPrimitives(recording, prototypes))
    assert world.card.instruction == 'pick the red block' and world.task == 'toy'
    assert [camera for camera, _ in world.card.images] == ['head']
    assert set(world.acting) == {'close_gripper', 'move_to'}
    assert not world.success()

"""
Both gripper actions, through CDR with the control_msgs definitions (Jazzy).

``ParallelGripperCommand`` (the default) commands the finger joint: half the gap for the
ARX-X5's mirrored fingers; ``GripperCommand`` commands the gap itself.
"""

from pyrua_primitives.conversions.control import (
    CONTROL_MSGS_DEFINITIONS,
    gripper_goal_fields,
    gripper_goal_width,
    gripper_outcome,
    gripper_result_fields,
    gripper_result_width,
    STATUS_CANCELED,
    STATUS_SUCCEEDED,
)
from pyrua_primitives.conversions.interfaces import rosbags_factory
from pyrua_primitives.ros.config import RosStationConfig
from pyrua_primitives.station import GripperResult
import pytest


@pytest.fixture(scope='module')
def control(typestore):
    from rosbags.typesys import get_types_from_msg

    for name, text in CONTROL_MSGS_DEFINITIONS.items():
        if name not in typestore.types:
            typestore.register(get_types_from_msg(text, name))
    return typestore


def _cdr(store, message, type_name):
    return store.deserialize_cdr(store.serialize_cdr(message, type_name), type_name)


def test_parallel_goal_names_the_finger_joint_at_half_the_gap(control):
    make = rosbags_factory(control)
    fields = gripper_goal_fields('parallel', 'left', 0.06, 10.0, make)
    goal = _cdr(control, make('control_msgs/action/ParallelGripperCommand_Goal', **fields),
                'control_msgs/action/ParallelGripperCommand_Goal')
    assert list(goal.command.name) == ['left/joint7']
    assert list(goal.command.position) == pytest.approx([0.03])
    assert list(goal.command.effort) == pytest.approx([10.0])
    assert gripper_goal_width('parallel', goal) == pytest.approx(0.06)


def test_gripper_command_goal_carries_the_gap_itself(control):
    make = rosbags_factory(control)
    fields = gripper_goal_fields('gripper_command', 'right', 0.06, 10.0, make)
    goal = _cdr(control, make('control_msgs/action/GripperCommand_Goal', **fields),
                'control_msgs/action/GripperCommand_Goal')
    assert goal.command.position == pytest.approx(0.06)
    assert goal.command.max_effort == pytest.approx(10.0)
    assert gripper_goal_width('gripper_command', goal) == pytest.approx(0.06)


@pytest.mark.parametrize('interface, action', [('parallel', 'ParallelGripperCommand'),
                                               ('gripper_command', 'GripperCommand')])
def test_results_round_trip_to_the_same_width(control, interface, action):
    make = rosbags_factory(control)
    held = GripperResult(False, 'stalled on an object', 0.031, True, 0.8)
    type_name = f'control_msgs/action/{action}_Result'
    fields = gripper_result_fields(interface, 'left', held, make)
    message = _cdr(control, make(type_name, **fields), type_name)
    width = gripper_result_width(interface, message)
    assert width == pytest.approx(0.031)
    outcome = gripper_outcome(STATUS_SUCCEEDED, width, message.stalled, message.reached_goal,
                              0.8)
    assert outcome.stalled and not outcome.reached and outcome.reason == 'stalled on an object'
    assert gripper_outcome(STATUS_CANCELED, width, False, False, 0.1).reason == 'cancelled'


def test_parallel_is_the_default_and_unknown_interfaces_are_refused():
    assert RosStationConfig().gripper_interface == 'parallel'
    with pytest.raises(ValueError, match="unknown gripper interface 'parallel_gripper'"):
        RosStationConfig(gripper_interface='parallel_gripper')

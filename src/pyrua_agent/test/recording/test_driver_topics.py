"""The recording's driver topics use the names and format the ROS station reads."""

import numpy as np
from pyrua_agent.recording import driver_topics, topics
from pyrua_agent.recording.msg_types import load_project_types
from pyrua_primitives.conversions.joint_states import joint_state_from_message
from pyrua_primitives.ros import names
from pyrua_primitives.ros.config import RosStationConfig
from pyrua_primitives.station import ArmBase, JointState
import pytest


@pytest.fixture(scope='module')
def typestore():
    return load_project_types().store


def test_names_match_what_the_ros_station_reads():
    config = RosStationConfig()
    assert driver_topics.BASE_FRAME == config.base_frame == names.BASE_FRAME
    assert driver_topics.CLOCK == names.CLOCK
    assert topics.JOINT_STATES == config.joint_states_topic
    assert topics.WORLD_FRAME == config.world_frame


def test_joint_states_carry_every_arm_read_in_the_driver_format(typestore):
    built = driver_topics.DriverTopics(typestore)
    left = JointState(arm='left', positions_rad=np.arange(6) * 0.1, velocities_rad_s=np.zeros(6),
                      gripper_width_m=0.05, stamp_s=0.0)
    right = JointState(arm='right', positions_rad=-np.arange(6) * 0.1,
                       velocities_rad_s=np.zeros(6), gripper_width_m=0.02, stamp_s=1.5)
    built.joint_states(left)
    entries = built.joint_states(right)
    (topic, _type, message), (clock_topic, _ctype, clock_message) = entries
    assert topic == '/joint_states' and clock_topic == '/clock'
    assert clock_message.clock.sec == 1 and clock_message.clock.nanosec == 500_000_000
    for state in (left, right):
        read = joint_state_from_message(message, state.arm)
        assert np.allclose(read.positions_rad, state.positions_rad)
        assert read.gripper_width_m == state.gripper_width_m


def test_arm_bases_are_one_tf_static_message(typestore):
    bases = [ArmBase('left', np.eye(4)), ArmBase('right', np.eye(4))]
    ((topic, _type, message),) = driver_topics.DriverTopics(typestore).arm_bases(bases, 0.0)
    assert topic == '/tf_static'
    assert [t.child_frame_id for t in message.transforms] == ['left/base_link',
                                                              'right/base_link']
    assert {t.header.frame_id for t in message.transforms} == {'world'}

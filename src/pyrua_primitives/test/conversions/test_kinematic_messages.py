"""JointState, JointTrajectory, station time and TF conversions, through CDR."""

import numpy as np
from pyrua_primitives import JointState, TrajectoryResult
from pyrua_primitives.conversions.control import (
    STATUS_ABORTED,
    STATUS_CANCELED,
    STATUS_SUCCEEDED,
    trajectory_error_code,
    trajectory_from_message,
    trajectory_outcome,
    trajectory_to_message,
)
from pyrua_primitives.conversions.joint_states import (
    joint_state_from_message,
    joint_states_to_message,
)
from pyrua_primitives.conversions.transforms import (
    matrix_to_quat,
    matrix_to_transform_stamped,
    pose_to_tuple,
    quat_to_matrix,
    transform_to_matrix,
    tuple_to_pose,
)
import pytest


def _cdr(typestore, message, type_name):
    return typestore.deserialize_cdr(typestore.serialize_cdr(message, type_name), type_name)


def _state(arm, offset):
    return JointState(arm=arm, positions_rad=np.arange(6) * 0.1 + offset,
                      velocities_rad_s=np.full(6, offset), gripper_width_m=0.06, stamp_s=2.0)


def test_joint_states_round_trip_both_arms(typestore, make):
    states = [_state('left', 0.0), _state('right', 0.5)]
    message = _cdr(typestore, joint_states_to_message(states, 2.0, make),
                   'sensor_msgs/msg/JointState')
    assert list(message.name[:8]) == [f'left/joint{i}' for i in range(1, 9)]
    for state in states:
        back = joint_state_from_message(message, state.arm)
        assert np.allclose(back.positions_rad, state.positions_rad)
        assert np.allclose(back.velocities_rad_s, state.velocities_rad_s)
        assert back.gripper_width_m == pytest.approx(0.06) and back.stamp_s == 2.0


def test_joint_states_in_any_order_with_a_driver_prefix_and_no_velocity(make):
    names = [f'right_joint{i}' for i in (8, 7, 6, 5, 4, 3, 2, 1)]
    message = make('sensor_msgs/msg/JointState', header=make('std_msgs/msg/Header', stamp=make(
        'builtin_interfaces/msg/Time', sec=1, nanosec=0), frame_id=''), name=names,
        position=np.array([0.01, 0.02, 6, 5, 4, 3, 2, 1.0]), velocity=np.zeros(0),
        effort=np.zeros(0))
    state = joint_state_from_message(message, 'right', prefix='right_')
    assert np.allclose(state.positions_rad, [1, 2, 3, 4, 5, 6])
    assert state.gripper_width_m == pytest.approx(0.03) and not state.velocities_rad_s.any()
    with pytest.raises(KeyError, match='set the joint name prefix'):
        joint_state_from_message(message, 'left')


def test_trajectory_round_trips_and_reorders_joints(typestore, make):
    q = np.arange(12, dtype=float).reshape(2, 6) / 10
    message = _cdr(typestore, trajectory_to_message('left', q, np.array([0.5, 1.25]), make),
                   'trajectory_msgs/msg/JointTrajectory')
    positions, times = trajectory_from_message(message, 'left')
    assert np.allclose(positions, q) and np.allclose(times, [0.5, 1.25])
    message.joint_names = list(reversed(message.joint_names))
    for point in message.points:
        point.positions = point.positions[::-1].copy()
    assert np.allclose(trajectory_from_message(message, 'left')[0], q)
    with pytest.raises(KeyError, match="joints of arm 'right'"):
        trajectory_from_message(message, 'right')


def test_bad_trajectories_are_refused(make):
    with pytest.raises(ValueError, match='strictly increasing'):
        trajectory_to_message('left', np.zeros((2, 6)), np.array([1.0, 1.0]), make)
    with pytest.raises(ValueError, match='vs N x 6'):
        trajectory_to_message('left', np.zeros((2, 5)), np.array([1.0, 2.0]), make)


def test_trajectory_outcomes_and_error_codes():
    q = np.zeros(6)
    assert trajectory_outcome(STATUS_SUCCEEDED, 0, '', q, 1.0).completed
    cancelled = trajectory_outcome(STATUS_CANCELED, 0, '', q, 0.5)
    assert not cancelled.completed and cancelled.reason == 'cancelled'
    aborted = trajectory_outcome(STATUS_ABORTED, -4, 'joint2 off path', q, 0.5)
    assert aborted.reason == 'controller: path tolerance violated (joint2 off path)'
    refused = TrajectoryResult(False, 'joint2 3.9 rad vs limit 3.67', q, 0.0)
    assert trajectory_error_code(refused) == (-1, refused.reason)
    assert trajectory_error_code(TrajectoryResult(True, '', q, 1.0)) == (0, '')


def test_transform_round_trips_through_cdr(typestore, make):
    angle = 0.7
    matrix = np.eye(4)
    matrix[:3, :3] = [[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0],
                      [0, 0, 1]]
    matrix[:3, 3] = [0.1, -0.41, 1.308]
    message = _cdr(typestore, matrix_to_transform_stamped(matrix, 'world', 'head_optical_frame',
                                                          4.0, make),
                   'geometry_msgs/msg/TransformStamped')
    assert message.header.frame_id == 'world' and message.child_frame_id == 'head_optical_frame'
    assert np.allclose(transform_to_matrix(message.transform), matrix)


@pytest.mark.parametrize('seed', range(5))
def test_quaternion_and_matrix_agree(seed):
    q = np.random.default_rng(seed).normal(size=4)
    q = q / np.linalg.norm(q) * np.sign(q[0])
    assert np.allclose(matrix_to_quat(quat_to_matrix(*q)), q)


def test_pose_tuples_round_trip_and_refuse_bad_lengths(typestore, make):
    pose = (0.1, 0.2, 0.8, np.cos(0.3), 0.0, 0.0, np.sin(0.3))
    message = _cdr(typestore, tuple_to_pose(pose, make), 'geometry_msgs/msg/Pose')
    assert np.allclose(pose_to_tuple(message), pose)
    assert pose_to_tuple(tuple_to_pose((1, 2, 3), make))[3:] == (1.0, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match='pose of 4 numbers'):
        tuple_to_pose((1, 2, 3, 4), make)


def test_station_time_is_the_joint_state_stamp_not_the_reader_clock(make):
    from pyrua_primitives.conversions.joint_states import station_time_s

    state = JointState(arm='left', positions_rad=np.zeros(6), velocities_rad_s=np.zeros(6),
                       gripper_width_m=0.0, stamp_s=0.0)
    stamped = joint_states_to_message([state], 12.5, make)
    assert station_time_s(stamped) == pytest.approx(12.5)
    # 0 is the twin's time right after a reset: a valid stamp, not "unstamped".
    at_reset = joint_states_to_message([state], 0.0, make)
    assert station_time_s(at_reset) == 0.0

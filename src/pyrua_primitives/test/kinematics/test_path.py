import math

import numpy as np
from pyrua_primitives.kinematics import arx_x5
from pyrua_primitives.kinematics.forward import tcp_pose
from pyrua_primitives.kinematics.orientation import top_down_rotation
from pyrua_primitives.kinematics.path import (
    joint_path,
    JointTrajectory,
    line_path,
    time_waypoints,
)
import pytest

MOUNT = np.eye(4)
MOUNT[:3, :3] = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
MOUNT[:3, 3] = (-0.3, -0.45, 0.765)
START = np.array([0.3, 2.0, 1.3, -0.8, 0.0, 0.2])


def _target(xyz, heading):
    target = np.eye(4)
    target[:3, :3] = top_down_rotation(heading)
    target[:3, 3] = xyz
    return target


def _deviation_from_line(positions, a, b):
    """Largest distance of the TCP from segment a-b, sampled between the waypoints."""
    direction = (b - a) / np.linalg.norm(b - a)
    worst = 0.0
    for q0, q1 in zip(positions[:-1], positions[1:], strict=True):
        for s in np.linspace(0.0, 1.0, 5):
            p = tcp_pose(q0 + s * (q1 - q0), MOUNT)[:3, 3] - a
            worst = max(worst, float(np.linalg.norm(p - (p @ direction) * direction)))
    return worst


def test_straight_line_stays_within_2_mm_of_the_line():
    start = tcp_pose(START, MOUNT)
    heading = math.atan2(start[1, 1], start[0, 1]) - 0.5
    goal = _target(start[:3, 3] + (0.12, 0.08, 0.05), heading)
    result = line_path(START, goal, world_from_base=MOUNT)
    assert result.found, result.reason
    assert _deviation_from_line(result.positions_rad, start[:3, 3], goal[:3, 3]) < 0.002
    end = tcp_pose(result.positions_rad[-1], MOUNT)
    np.testing.assert_allclose(end[:3, 3], goal[:3, 3], atol=2e-4)
    turn = math.remainder(math.atan2(end[1, 1], end[0, 1]) - heading, 2 * math.pi)
    assert turn == pytest.approx(0.0, abs=2e-3)


def test_straight_line_waypoints_are_about_a_centimetre_apart():
    start = tcp_pose(START, MOUNT)
    goal = start.copy()
    goal[:3, 3] += (0.0, 0.1, 0.0)
    result = line_path(START, goal, world_from_base=MOUNT)
    tcp = np.array([tcp_pose(q, MOUNT)[:3, 3] for q in result.positions_rad])
    steps = np.linalg.norm(np.diff(tcp, axis=0), axis=1)
    assert len(result.positions_rad) == 11
    assert np.all(steps <= 0.0101)


def test_straight_line_refuses_a_joint_jump_with_a_reason():
    start = tcp_pose(START, MOUNT)
    goal = start.copy()
    goal[:3, 3] += (0.0, 0.05, 0.0)
    result = line_path(START, goal, world_from_base=MOUNT, max_joint_step_rad=0.01)
    assert not result.found
    assert 'jump' in result.reason and 'vs 0.01 rad' in result.reason
    assert 'use a joint move' in result.reason


def test_straight_line_out_of_reach_is_refused_not_bent():
    start = tcp_pose(START, MOUNT)
    goal = start.copy()
    goal[:3, 3] += (0.0, 0.6, 0.0)
    result = line_path(START, goal, world_from_base=MOUNT)
    assert not result.found
    assert 'no IK at waypoint' in result.reason


def test_joint_path_steps_no_joint_more_than_the_step():
    goal = np.array([-0.5, 1.0, 0.5, 0.5, -0.5, 1.0])
    positions = joint_path(START, goal, step_rad=0.05)
    assert np.max(np.abs(np.diff(positions, axis=0))) <= 0.05 + 1e-12
    np.testing.assert_allclose(positions[[0, -1]], [START, goal])


def test_timing_respects_joint_and_tcp_speeds():
    positions = joint_path(START, np.array([-0.5, 1.0, 0.5, 0.5, -0.5, 1.0]))
    limits = arx_x5.VELOCITY_LIMITS_RAD_S * 0.5
    trajectory = time_waypoints(positions, world_from_base=MOUNT, max_velocity_rad_s=limits,
                                tcp_speed_m_s=0.15)
    dt = np.diff(trajectory.times_s)
    assert trajectory.times_s[0] == 0.0 and np.all(dt > 0)
    assert np.all(np.abs(np.diff(positions, axis=0)) / dt[:, None] <= limits + 1e-9)
    tcp = np.array([tcp_pose(q, MOUNT)[:3, 3] for q in positions])
    assert np.all(np.linalg.norm(np.diff(tcp, axis=0), axis=1) / dt <= 0.15 + 1e-9)


def test_station_waypoints_drop_the_start_row():
    trajectory = JointTrajectory(np.array([START, START + 0.1]), np.array([0.0, 0.5]))
    positions, times = trajectory.station_waypoints()
    assert positions.shape == (1, 6) and times.tolist() == [0.5]
    assert repr(trajectory) == 'JointTrajectory(2 waypoints, 0.50 s)'


def test_line_path_rejects_nan_start():
    with pytest.raises(ValueError, match='q_start_rad'):
        line_path([math.nan] * 6, np.eye(4), world_from_base=MOUNT)

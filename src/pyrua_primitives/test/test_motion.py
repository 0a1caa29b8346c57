import dataclasses
import math

import numpy as np
from pyrua_primitives.kinematics import arx_x5
from pyrua_primitives.kinematics.forward import tcp_pose
from pyrua_primitives.kinematics.orientation import closing_heading_rad
from pyrua_primitives.motion import MotionConfig, MotionScene, plan_joint_move, plan_move
import pytest

# Reachable top-down targets for the left arm (world frame; base at (-0.3, -0.45), table 0.765).
TARGET = (-0.25, -0.12, 0.85)


@pytest.fixture(scope='module')
def station():
    from pyrua_sim.model import station_spec
    from pyrua_sim.station import MujocoStation

    return MujocoStation(station_spec().compile())


@pytest.fixture(scope='module')
def scene(station):
    return MotionScene.from_station(station, 'left')


def _final_pose(scene, result):
    return tcp_pose(result.trajectory.positions_rad[-1], scene.world_from_base)


def test_scene_reads_the_station_calibration(scene, station):
    assert scene.arm == 'left' and scene.table_z_m == station.table_height_m()
    np.testing.assert_allclose(scene.world_from_base, station.arm_base('left').world_from_base)
    np.testing.assert_allclose(scene.other_q_rad, station.joint_state('right').positions_rad)


def test_plan_move_reaches_a_top_down_target_at_the_heading(scene):
    result = plan_move(scene, TARGET, 0.4)
    assert result.planned, result.reason
    pose = _final_pose(scene, result)
    np.testing.assert_allclose(pose[:3, 3], TARGET, atol=2e-4)
    assert pose[2, 0] == pytest.approx(-1.0, abs=1e-3)
    assert closing_heading_rad(pose[:3, :3]) == pytest.approx(0.4, abs=2e-3)
    assert result.heading_rad == pytest.approx(0.4, abs=2e-3)
    positions = result.trajectory.positions_rad
    np.testing.assert_allclose(positions[0], scene.q_rad)
    assert np.all(positions >= arx_x5.LOWER_LIMITS_RAD)
    assert np.all(positions <= arx_x5.UPPER_LIMITS_RAD)
    waypoints, times = result.trajectory.station_waypoints()
    assert waypoints.shape == (len(positions) - 1, 6) and times[0] > 0
    assert result.safety.safe
    assert repr(result).startswith('PlanResult(planned,') and len(repr(result)) <= 120


def test_heading_is_taken_modulo_half_a_turn(scene):
    one = plan_move(scene, TARGET, 0.4)
    other = plan_move(scene, TARGET, 0.4 + math.pi)
    np.testing.assert_allclose(one.goal_q_rad, other.goal_q_rad, atol=1e-6)


def test_no_heading_keeps_the_wrist_roll_needing_least_rotation(scene):
    free = plan_move(scene, TARGET)
    assert free.planned, free.reason
    free_turn = abs(free.goal_q_rad[5] - scene.q_rad[5])
    for heading in np.radians(np.arange(-90.0, 90.0, 15.0)):
        fixed = plan_move(scene, TARGET, heading)
        assert fixed.planned, fixed.reason
        assert abs(fixed.goal_q_rad[5] - scene.q_rad[5]) >= free_turn - 0.02


def test_joint_path_reaches_the_same_pose(scene):
    result = plan_move(scene, TARGET, 0.4, path='joint')
    assert result.planned, result.reason
    np.testing.assert_allclose(_final_pose(scene, result)[:3, 3], TARGET, atol=2e-4)


def test_plan_move_refuses_a_target_too_far_with_the_distance(scene):
    result = plan_move(scene, (-0.3, 0.15, 0.80))
    assert not result.planned and result.trajectory is None
    assert result.reason.startswith('not reachable: top-down TCP 0.600 m out')
    assert 'pass max_tilt > 0' in result.reason


def test_plan_move_refuses_a_target_too_high_for_top_down(scene):
    result = plan_move(scene, (-0.3, -0.15, 0.99))
    assert not result.planned
    assert 'joint4 would need' in result.reason and 'vs soft limit -1.29 rad' in result.reason


def test_plan_move_tilts_only_when_the_caller_allows_it(scene):
    result = plan_move(scene, (-0.3, -0.15, 0.99), max_tilt_rad=0.8)
    assert result.planned, result.reason
    assert 0.0 < result.tilt_rad <= 0.8
    pose = _final_pose(scene, result)
    np.testing.assert_allclose(pose[:3, 3], (-0.3, -0.15, 0.99), atol=2e-4)
    assert math.acos(-pose[2, 0]) == pytest.approx(result.tilt_rad, abs=1e-3)


def test_plan_move_refuses_going_below_the_table_clearance(scene):
    result = plan_move(scene, (-0.25, -0.12, 0.78), 0.4)
    assert not result.planned
    # The refusal names the number a cell can use: the lowest z this move accepts.
    assert ('is below table clearance 0.7950 m; raise z to at least 0.7950 or pass '
            'descend=True' in result.reason)


def test_plan_move_descends_to_a_measured_object_when_flagged(scene):
    result = plan_move(scene, (-0.25, -0.12, 0.79), 0.4, descend=True)
    assert result.planned, result.reason
    assert _final_pose(scene, result)[2, 3] == pytest.approx(0.79, abs=2e-4)


def test_plan_move_respects_the_planning_speeds(scene):
    config = MotionConfig(tcp_speed_m_s=0.1, joint_speed_fraction=0.3)
    result = plan_move(scene, TARGET, 0.4, motion=config)
    positions, times = result.trajectory.positions_rad, result.trajectory.times_s
    speeds = np.abs(np.diff(positions, axis=0)) / np.diff(times)[:, None]
    assert np.all(speeds <= arx_x5.VELOCITY_LIMITS_RAD_S * 0.3 + 1e-9)
    tcp = np.array([tcp_pose(q, scene.world_from_base)[:3, 3] for q in positions])
    assert np.all(np.linalg.norm(np.diff(tcp, axis=0), axis=1) / np.diff(times) <= 0.1 + 1e-9)


def test_planned_trajectory_runs_on_the_twin(station):
    scene = MotionScene.from_station(station, 'right')
    target = (0.32, -0.10, 0.84)
    result = plan_move(scene, target, -0.3)
    assert result.planned, result.reason
    outcome = station.follow_joint_trajectory('right', *result.trajectory.station_waypoints())
    assert outcome.completed, outcome.reason
    reached = tcp_pose(station.joint_state('right').positions_rad, scene.world_from_base)
    assert np.linalg.norm(reached[:3, 3] - target) < 0.01


def test_plan_joint_move_refuses_a_goal_outside_the_limits(scene):
    result = plan_joint_move(scene, [0.0, 1.6, 1.1, -1.5, 0.0, 0.0])
    assert not result.planned
    assert 'joint4=' in result.reason and 'vs soft limits [-1.29, +1.29] rad' in result.reason
    assert plan_joint_move(scene, scene.q_rad + 0.05).planned


@pytest.mark.parametrize('xyz, match', [
    ((0.1, 0.2), 'xyz_m has 2 values vs 3'),
    ((0.1, math.nan, 0.9), 'xyz_m=.*NaN'),
])
def test_plan_move_rejects_malformed_targets(scene, xyz, match):
    with pytest.raises(ValueError, match=match):
        plan_move(scene, xyz)


def test_plan_move_rejects_nan_heading_and_unknown_path(scene):
    with pytest.raises(ValueError, match='heading_rad=nan'):
        plan_move(scene, TARGET, math.nan)
    with pytest.raises(ValueError, match="unknown path 'lin'; did you mean 'line'"):
        plan_move(scene, TARGET, path='lin')


def test_scene_rejects_wrong_length_joints(scene):
    with pytest.raises(ValueError, match='q_rad has 5 values vs 6 joints'):
        dataclasses.replace(scene, q_rad=np.zeros(5))
    with pytest.raises(ValueError, match="unknown arm 'lft'"):
        dataclasses.replace(scene, arm='lft')


def test_motion_config_rejects_a_speed_above_the_arm_limit():
    with pytest.raises(ValueError, match=r'MotionConfig.tcp_speed_m_s=2.0 vs allowed'):
        MotionConfig(tcp_speed_m_s=2.0)


def test_plan_move_refuses_beyond_reach_even_with_tilt(scene):
    result = plan_move(scene, (-0.3, 0.35, 0.80), max_tilt_rad=0.5)
    assert not result.planned
    assert ('no approach tilted up to 29 deg reaches it; move x, y to 0.08-0.46 m from the arm '
            'base at (-0.30, -0.45)') in result.reason


def test_plan_move_reaches_an_explicit_rotation(scene):
    q = np.array([0.1, 1.5, 1.2, -0.3, 0.4, 0.2])
    goal = tcp_pose(q, scene.world_from_base)
    result = plan_move(scene, goal[:3, 3], rotation=goal[:3, :3], path='joint')
    assert result.planned, result.reason
    np.testing.assert_allclose(_final_pose(scene, result), goal, atol=2e-4)


def test_plan_move_rejects_a_non_rotation(scene):
    with pytest.raises(ValueError, match='off orthonormal'):
        plan_move(scene, TARGET, rotation=np.eye(3) * 2.0)


def test_planning_limits_match_the_twin(station):
    for arm in ('left', 'right'):
        limits = station.joint_limits(arm)
        np.testing.assert_allclose(limits.lower_rad, arx_x5.LOWER_LIMITS_RAD)
        np.testing.assert_allclose(limits.upper_rad, arx_x5.UPPER_LIMITS_RAD)
        np.testing.assert_allclose(limits.max_velocity_rad_s, arx_x5.VELOCITY_LIMITS_RAD_S)

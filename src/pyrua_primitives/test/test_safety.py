import math
import re

import numpy as np
from pyrua_primitives.kinematics.forward import tcp_pose
from pyrua_primitives.kinematics.path import JointTrajectory, line_path
from pyrua_primitives.motion import MotionScene
from pyrua_primitives.safety import check_trajectory, SafetyConfig, segment_distances
import pytest

# A mid-table top-down pose of the left arm (base frame: 0.3 m out, 0.08 m up).
READY = np.array([0.0, 1.6, 1.1, -1.07, 0.0, 0.0])


@pytest.fixture(scope='module')
def scene():
    from pyrua_sim.model import station_spec
    from pyrua_sim.station import MujocoStation

    return MotionScene.from_station(MujocoStation(station_spec().compile()), 'left')


def _check(scene, positions, times=None, other_q_rad=None, **kwargs):
    positions = np.array(positions, dtype=float)
    other = scene.other_q_rad if other_q_rad is None else other_q_rad
    if times is None:
        times = np.arange(len(positions), dtype=float)
    return check_trajectory(
        JointTrajectory(positions, np.asarray(times, dtype=float)),
        world_from_base=scene.world_from_base, other_world_from_base=scene.other_world_from_base,
        other_q_rad=other, table_z_m=scene.table_z_m, **kwargs,
    )


def _line_to(scene, start_q, xyz):
    target = np.eye(4)
    target[:3, :3] = tcp_pose(start_q, scene.world_from_base)[:3, :3]
    target[:3, 3] = xyz
    path = line_path(start_q, target, world_from_base=scene.world_from_base)
    assert path.found, path.reason
    return path.positions_rad


def _tcp(scene, q):
    return tcp_pose(q, scene.world_from_base)[:3, 3]


def test_gate_accepts_a_slow_move_above_the_table(scene):
    verdict = _check(scene, [READY, READY + 0.05])
    assert verdict.safe, verdict.reason
    assert verdict.reason == ''
    assert verdict.min_arm_distance_m > 0.05 and verdict.min_tcp_clearance_m > 0.03
    assert repr(verdict).startswith('SafetyResult(safe, arms')


def test_gate_refuses_a_waypoint_outside_the_joint_soft_limits(scene):
    bad = READY.copy()
    bad[3] = -1.35
    verdict = _check(scene, [READY, bad])
    assert not verdict.safe
    assert verdict.reason.startswith('joint4=-1.350 rad at waypoint 1 vs soft limits')


def test_gate_refuses_joints_faster_than_their_limit(scene):
    verdict = _check(scene, [READY, READY + [0.0, 0.0, 0.0, 0.0, 0.0, 0.1]], [0.0, 0.01])
    assert not verdict.safe
    assert verdict.reason == (
        'joint6 speed 10.00 rad/s on segment 0 vs limit 5.00 rad/s; slow the motion down'
    )
    assert _check(scene, [READY, READY + [0.0, 0.0, 0.0, 0.0, 0.0, 0.1]], [0.0, 0.03]).safe


def test_gate_refuses_a_tcp_faster_than_its_limit(scene):
    moved = READY + [0.2, 0.0, 0.0, 0.0, 0.0, 0.0]
    verdict = _check(scene, [READY, moved], [0.0, 0.05])
    assert not verdict.safe
    assert verdict.reason.startswith('TCP speed') and 'vs limit 0.60 m/s' in verdict.reason
    assert _check(scene, [READY, moved], [0.0, 0.5]).safe


def test_gate_refuses_a_tcp_outside_the_workspace_box(scene):
    config = SafetyConfig(workspace_max_base_m=(0.25, 0.75, 0.65))
    verdict = _check(scene, [READY, READY + 0.01], config=config)
    assert not verdict.safe
    assert 'along base x vs workspace box [-0.15, +0.25] m' in verdict.reason
    assert repr(verdict).startswith('SafetyResult(safe=False') and len(repr(verdict)) <= 120
    assert _check(scene, [READY, READY + 0.01]).safe


def test_gate_refuses_tcp_below_table_clearance_unless_descending(scene):
    start = _tcp(scene, READY)
    positions = _line_to(scene, READY, (start[0], start[1], scene.table_z_m + 0.025))
    verdict = _check(scene, positions, np.arange(len(positions)) * 0.1)
    assert not verdict.safe
    assert re.match(r'z=0\.79\d\d m is below table clearance 0\.7950 m', verdict.reason)
    assert verdict.reason.endswith('raise z to at least 0.7950 or pass descend=True for a '
                                   'measured object')
    descent = _check(scene, positions, np.arange(len(positions)) * 0.1, descend=True)
    assert descent.safe, descent.reason


def test_gate_keeps_the_finger_tips_above_the_table_on_a_descent(scene):
    start = _tcp(scene, READY)
    positions = _line_to(scene, READY, (start[0], start[1], scene.table_z_m + 0.021))
    verdict = _check(scene, positions, np.arange(len(positions)) * 0.1, descend=True)
    assert not verdict.safe
    assert verdict.reason.startswith('finger tips z=0.7660 m are below the floor 0.7680 m')
    assert 'raise z to at least 0.7880 (station_facts().lowest_descend_z_m)' in verdict.reason


def test_gate_lets_a_lift_start_below_the_clearance_but_not_go_deeper(scene):
    start = _tcp(scene, READY)
    low = _line_to(scene, READY, (start[0], start[1], scene.table_z_m + 0.025))[-1]
    up = _line_to(scene, low, (start[0], start[1], scene.table_z_m + 0.06))
    assert _check(scene, up, np.arange(len(up)) * 0.1).safe
    deeper = _line_to(scene, low, (start[0], start[1], scene.table_z_m + 0.023))
    verdict = _check(scene, deeper, np.arange(len(deeper)) * 0.1)
    assert not verdict.safe and 'below table clearance' in verdict.reason


def test_gate_refuses_an_arm_link_dipping_below_the_table(scene):
    dipping = np.array([0.0, 3.38, 0.08, -0.81, -0.76, 0.81])
    verdict = _check(scene, [dipping, dipping], [0.0, 1.0])
    assert not verdict.safe
    assert verdict.reason.startswith('link3 dips to z=')
    assert 'vs table top 0.765 m' in verdict.reason
    # The same wrist with the elbow bent keeps link3 above the table.
    raised = np.array([0.0, 1.6, 1.0, -0.81, -0.76, 0.81])
    assert _check(scene, [raised, raised], [0.0, 1.0]).safe


def test_gate_refuses_arms_closer_than_the_margin(scene):
    # Both arms reach sideways toward each other across the table centre.
    left = np.array([-1.2, 1.6, 0.9, -0.3, 0.0, 0.0])
    toward = np.array([1.2, 1.6, 0.9, -0.3, 0.0, 0.0])
    verdict = _check(scene, [left, left], other_q_rad=toward)
    assert not verdict.safe
    assert verdict.reason.startswith('arms come') and 'vs margin 0.050 m' in verdict.reason
    away = np.array([-1.2, 1.6, 0.9, -0.3, 0.0, 0.0])
    accepted = _check(scene, [left, left], other_q_rad=away)
    assert accepted.safe, accepted.reason
    assert accepted.min_arm_distance_m >= 0.05


def test_gate_checks_between_waypoints_not_only_at_them(scene):
    # Both ends clear the table by > 5 cm, but the joint-space sweep between them does not.
    a = np.array([0.0, 1.2, 0.5, -0.2, -0.3, -0.1])
    b = np.array([1.2, 1.6, 0.8, -0.9, 1.2, 0.1])
    assert _check(scene, [a, a]).min_tcp_clearance_m > 0.05
    assert _check(scene, [b, b]).min_tcp_clearance_m > 0.05
    verdict = _check(scene, [a, b], [0.0, 10.0])
    assert not verdict.safe and 'below table clearance' in verdict.reason


def test_segment_distance_matches_hand_cases():
    a = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    b = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    c = np.array([[0.5, 1.0, 0.0], [2.0, 0.0, 0.0], [0.5, -1.0, 2.0]])
    d = np.array([[0.5, 2.0, 0.0], [3.0, 0.0, 0.0], [0.5, 1.0, 2.0]])
    np.testing.assert_allclose(segment_distances(a, b, c, d), [1.0, 1.0, 2.0])


@pytest.mark.parametrize('field, value', [
    ('table_clearance_m', -0.01),
    ('arm_distance_margin_m', math.nan),
    ('tcp_speed_limit_m_s', 2.0),
    ('joint_speed_fraction', 0.0),
])
def test_safety_config_rejects_out_of_range_fields(field, value):
    with pytest.raises(ValueError, match=f'SafetyConfig.{field}='):
        SafetyConfig(**{field: value})


def test_safety_config_rejects_an_inverted_workspace_box():
    with pytest.raises(ValueError, match='every min below its max'):
        SafetyConfig(workspace_min_base_m=(0.5, -0.75, -0.05),
                     workspace_max_base_m=(0.4, 0.75, 0.6))


def test_gate_rejects_malformed_trajectories(scene):
    with pytest.raises(ValueError, match=r'vs \(N, 6\)'):
        _check(scene, np.zeros((3, 5)))
    with pytest.raises(ValueError, match='NaN'):
        _check(scene, [READY, READY * math.nan])

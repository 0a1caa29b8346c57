import math

import numpy as np
from pyrua_primitives.kinematics import arx_x5
from pyrua_primitives.kinematics.forward import tcp_pose
from pyrua_primitives.kinematics.inverse import solve_ik
import pytest

LOWER, UPPER = arx_x5.LOWER_LIMITS_RAD, arx_x5.UPPER_LIMITS_RAD


def test_ik_round_trip_from_a_nearby_seed_always_converges():
    rng = np.random.default_rng(11)
    for q in rng.uniform(LOWER, UPPER, size=(60, 6)):
        seed = np.clip(q + rng.normal(0.0, 0.3, 6), LOWER, UPPER)
        result = solve_ik(tcp_pose(q), seed)
        assert result.found, result.reason
        pose = tcp_pose(result.q_rad)
        assert np.linalg.norm(pose[:3, 3] - tcp_pose(q)[:3, 3]) <= 1e-4
        assert result.orientation_error_rad <= 1e-3


def test_ik_from_a_far_seed_finds_most_random_poses_inside_limits():
    rng = np.random.default_rng(12)
    found = 0
    for q in rng.uniform(LOWER, UPPER, size=(60, 6)):
        result = solve_ik(tcp_pose(q), np.zeros(6))
        assert np.all(result.q_rad >= LOWER) and np.all(result.q_rad <= UPPER)
        found += result.found
    # Misses are contorted poses reached only near several limits at once.
    assert found >= 55


def test_ik_in_world_frame_uses_the_mount():
    mount = np.eye(4)
    mount[:3, :3] = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    mount[:3, 3] = (0.3, -0.45, 0.765)
    q = np.array([0.4, 2.0, 1.3, -0.8, 0.0, 0.5])
    result = solve_ik(tcp_pose(q, mount), np.zeros(6), world_from_base=mount)
    assert result.found
    np.testing.assert_allclose(tcp_pose(result.q_rad, mount), tcp_pose(q, mount), atol=2e-4)


def test_ik_refuses_a_target_out_of_reach_with_a_reason():
    target = np.eye(4)
    target[:3, 3] = (1.2, 0.0, 0.1)
    result = solve_ik(target, np.zeros(6))
    assert not result.found
    assert 'mm' in result.reason and 'vs 0.1 mm' in result.reason
    assert result.position_error_m > 0.3
    assert 'found=False' in repr(result)


def test_ik_never_returns_joints_outside_custom_limits():
    q = np.array([0.0, 2.0, 1.3, -0.8, 0.0, 1.2])
    upper = UPPER.copy()
    upper[5] = 0.5
    result = solve_ik(tcp_pose(q), np.zeros(6), upper_rad=upper)
    assert not result.found
    assert result.q_rad[5] <= 0.5
    assert 'joint6 at its soft limit +0.50 rad' in result.reason


def test_ik_free_roll_matches_only_the_approach_axis():
    q = np.array([0.2, 2.0, 1.3, -0.8, 0.0, 0.0])
    target = tcp_pose(q)
    c, s = math.cos(1.0), math.sin(1.0)
    target[:3, :3] = target[:3, :3] @ np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    result = solve_ik(target, q, free_roll=True)
    assert result.found
    # The seed already has the right approach axis, so the roll stays where it was.
    assert result.q_rad[5] == pytest.approx(0.0, abs=1e-3)


@pytest.mark.parametrize('seed', [np.zeros(4), [0.0, 0.0, 0.0, math.nan, 0.0, 0.0]])
def test_ik_rejects_malformed_seed(seed):
    with pytest.raises(ValueError, match='q_seed_rad'):
        solve_ik(np.eye(4), seed)


def test_ik_rejects_nan_target():
    target = np.eye(4)
    target[0, 3] = math.nan
    with pytest.raises(ValueError, match='target has NaN'):
        solve_ik(target, np.zeros(6))


def test_ik_result_repr_is_short_and_in_mm_and_degrees():
    result = solve_ik(tcp_pose(np.array([0.1, 1.5, 1.0, 0.0, 0.0, 0.0])), np.zeros(6))
    text = repr(result)
    assert text.startswith('IkResult(found, error') and 'mm' in text and 'deg' in text
    assert len(text) <= 120

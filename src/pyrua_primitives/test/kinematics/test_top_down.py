import math

import numpy as np
from pyrua_primitives.kinematics import arx_x5
from pyrua_primitives.kinematics.forward import tcp_pose
from pyrua_primitives.kinematics.inverse import solve_ik
from pyrua_primitives.kinematics.orientation import top_down_rotation
from pyrua_primitives.kinematics.top_down import envelope_reason, planar_shapes, top_down_seeds
import pytest

# The top-down envelope the task programs rely on: TCP height above the table (= base plane)
# -> farthest horizontal distance from the base axis. Above ~0.115 m no top-down grasp
# exists at all (joint4's soft limit keeps the forearm below horizontal).
REACH_GRID = {0.015: 0.46, 0.03: 0.45, 0.05: 0.44, 0.08: 0.40, 0.10: 0.35}


def _solve_top_down(xyz, heading):
    """Solve like the planner: closed-form seeds, both headings modulo pi."""
    result = None
    for candidate in (heading, heading + math.pi):
        target = np.eye(4)
        target[:3, :3] = top_down_rotation(candidate)
        target[:3, 3] = xyz
        hints = top_down_seeds(target)
        if not hints:
            continue  # joint6 cannot turn that far; the other direction closes the same way
        result = solve_ik(target, np.zeros(6), hint_seeds=hints)
        if result.found:
            return result
    return result


def test_closed_form_shape_reproduces_reference_example():
    # Reference §1.5: d = 0.35 m at table level -> q2 ~ 2.0, q3 ~ 1.28, q4 ~ -0.84.
    (q2, q3, q4), = planar_shapes(0.35, 0.0)
    assert (q2, q3, q4) == pytest.approx((2.0, 1.28, -0.84), abs=0.07)


def test_closed_form_seed_is_top_down_at_the_target():
    target = np.eye(4)
    target[:3, :3] = top_down_rotation(0.4)
    target[:3, 3] = (0.3, 0.1, 0.05)
    (seed,) = top_down_seeds(target)
    pose = tcp_pose(seed)
    np.testing.assert_allclose(pose[:3, 3], target[:3, 3], atol=2e-3)
    np.testing.assert_allclose(pose[:3, :3], target[:3, :3], atol=2e-3)


@pytest.mark.parametrize('height', sorted(REACH_GRID))
def test_top_down_grasp_is_solvable_over_the_reach_grid_for_any_heading(height):
    for distance in np.arange(0.18, REACH_GRID[height] + 1e-9, 0.04):
        for azimuth in np.radians([-60.0, 0.0, 60.0]):
            xyz = (distance * math.cos(azimuth), distance * math.sin(azimuth), height)
            for heading in np.radians([0.0, 45.0, 90.0, 135.0]):
                result = _solve_top_down(xyz, heading)
                assert result.found, (xyz, heading, result.reason)
                assert np.all(result.q_rad >= arx_x5.LOWER_LIMITS_RAD)
                assert np.all(result.q_rad <= arx_x5.UPPER_LIMITS_RAD)
                assert tcp_pose(result.q_rad)[2, 0] == pytest.approx(-1.0, abs=1e-6)


def test_envelope_is_open_inside_the_reach_grid():
    for height, far in REACH_GRID.items():
        assert envelope_reason(np.array([0.18, 0.0, height])) == ''
        assert envelope_reason(np.array([far, 0.0, height])) == ''


def test_envelope_explains_a_target_too_far_with_distances():
    reason = envelope_reason(np.array([0.55, 0.0, 0.02]))
    assert '0.550 m out' in reason and 'beyond the stretched arm' in reason
    assert 'top-down reaches 0.07-0.47 m out' in reason


def test_envelope_explains_a_target_too_high_with_the_joint4_limit():
    reason = envelope_reason(np.array([0.30, 0.0, 0.20]))
    assert 'joint4 would need' in reason and 'vs soft limit -1.29 rad' in reason
    assert 'no top-down grasp reaches this height' in reason


def test_envelope_explains_a_target_behind_joint1_limits():
    reason = envelope_reason(np.array([-0.3, 0.0, 0.05]))
    assert 'direction 180 deg' in reason and 'joint1' in reason

"""Joint interpolation: through every waypoint, no overshoot, refusals with reasons."""

import numpy as np
from pyrua_sim.arms import MAX_VELOCITY_RAD_S
from pyrua_sim.trajectory import JointTrajectory, refusal
import pytest

LOWER = np.full(6, -1.0)
UPPER = np.full(6, 1.0)


def test_path_passes_each_waypoint_at_its_time_and_holds_after():
    start = np.zeros(6)
    waypoints = np.array([np.full(6, 0.5), np.full(6, -0.2), np.full(6, 0.3)])
    path = JointTrajectory(10.0, start, waypoints, np.array([1.0, 2.5, 3.0]))
    np.testing.assert_allclose(path.at(9.0), start)
    np.testing.assert_allclose(path.at(11.0), waypoints[0])
    np.testing.assert_allclose(path.at(12.5), waypoints[1])
    np.testing.assert_allclose(path.at(20.0), waypoints[2])
    assert path.duration_s == 3.0


def test_path_never_leaves_the_span_of_neighbouring_waypoints():
    rng = np.random.default_rng(3)
    start = np.zeros(6)
    waypoints = rng.uniform(-1, 1, size=(6, 6))
    times = np.cumsum(rng.uniform(0.1, 1.0, size=6))
    path = JointTrajectory(0.0, start, waypoints, times)
    knots = np.vstack([start, waypoints])
    edges = np.concatenate([[0.0], times])
    for t in np.linspace(0, times[-1], 2000):
        i = min(int(np.searchsorted(edges, t, side='right')) - 1, len(times) - 1)
        low = np.minimum(knots[i], knots[i + 1]) - 1e-12
        high = np.maximum(knots[i], knots[i + 1]) + 1e-12
        q = path.at(t)
        assert np.all(q >= low) and np.all(q <= high), t


def test_path_starts_and_ends_at_rest():
    path = JointTrajectory(0.0, np.zeros(6), np.array([np.ones(6)]), np.array([1.0]))
    eps = 1e-4
    assert np.abs(path.at(eps) - path.at(0.0)).max() / eps < 1e-2
    assert np.abs(path.at(1.0) - path.at(1.0 - eps)).max() / eps < 1e-2


def test_refusal_names_the_joint_value_and_limits():
    waypoints = np.array([np.zeros(6), [0, 0, 1.2, 0, 0, 0]])
    reason = refusal(np.zeros(6), waypoints, np.array([1.0, 2.0]), LOWER, UPPER,
                     MAX_VELOCITY_RAD_S)
    assert reason.startswith('waypoint 1 joint3=1.200 rad vs soft limits [-1.000, 1.000] rad')


def test_refusal_names_a_too_fast_segment():
    waypoints = np.array([[0.9, 0, 0, 0, 0, 0]])
    reason = refusal(np.zeros(6), waypoints, np.array([0.1]), LOWER, UPPER, MAX_VELOCITY_RAD_S)
    assert 'joint1 needs 9.00 rad/s vs limit 5.00 rad/s' in reason
    assert refusal(np.zeros(6), waypoints, np.array([1.0]), LOWER, UPPER,
                   MAX_VELOCITY_RAD_S) == ''


def test_a_single_row_of_six_is_one_waypoint():
    positions, times = JointTrajectory.check_inputs(np.zeros(6), 1.0)
    assert positions.shape == (1, 6) and times.shape == (1,)
    with pytest.raises(ValueError, match='> 0 s'):
        JointTrajectory.check_inputs(np.zeros(6), 0.0)

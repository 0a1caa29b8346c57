"""
Joint-space interpolation for ``MujocoStation``: a monotone cubic through timed waypoints.

Each joint follows a piecewise cubic Hermite curve (Fritsch-Carlson slopes, as in PCHIP):
zero speed at the start and the end, and no overshoot, so between two waypoints a joint
never leaves the interval they span. A path whose waypoints are inside the joint limits
therefore stays inside them.
"""

from __future__ import annotations

import numpy as np
from pyrua_primitives.station import ARM_DOF


class JointTrajectory:
    """
    A timed joint path from ``start_q`` at ``start_t`` through ``waypoints`` at ``times``.

    :param start_t: simulated time of the start, seconds.
    :param start_q: joints at the start, radians (6,).
    :param waypoints: N x 6 waypoints, radians.
    :param times: N arrival times after ``start_t``, strictly increasing, seconds.
    """

    def __init__(
        self, start_t: float, start_q: np.ndarray, waypoints: np.ndarray, times: np.ndarray
    ) -> None:
        self._t0 = start_t
        self._t = np.concatenate([[0.0], times])
        self._q = np.vstack([start_q, waypoints])
        self._v = _slopes(self._t, self._q)

    @property
    def duration_s(self) -> float:
        """Return the time of the last waypoint after the start, seconds."""
        return float(self._t[-1])

    def at(self, time_s: float) -> np.ndarray:
        """Return the joint targets (rad) at simulated time ``time_s``, held after the end."""
        t = time_s - self._t0
        if t <= 0.0:
            return self._q[0].copy()
        if t >= self._t[-1]:
            return self._q[-1].copy()
        i = int(np.searchsorted(self._t, t, side='right')) - 1
        h = self._t[i + 1] - self._t[i]
        s = (t - self._t[i]) / h
        h00 = 2 * s**3 - 3 * s**2 + 1
        h10 = s**3 - 2 * s**2 + s
        h01 = -2 * s**3 + 3 * s**2
        h11 = s**3 - s**2
        return (
            h00 * self._q[i]
            + h10 * h * self._v[i]
            + h01 * self._q[i + 1]
            + h11 * h * self._v[i + 1]
        )

    @staticmethod
    def check_inputs(
        positions_rad: np.ndarray, times_s: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """
        Return waypoints (N x 6) and times (N,) as float arrays, or raise for misuse.

        :raises ValueError: for wrong shapes, non-finite values, or times that are not
            positive and strictly increasing.
        """
        positions = np.asarray(positions_rad, dtype=float)
        if positions.ndim == 1 and positions.shape[0] == ARM_DOF:
            positions = positions[None, :]
        times = np.atleast_1d(np.asarray(times_s, dtype=float))
        if positions.ndim != 2 or positions.shape[1] != ARM_DOF or positions.shape[0] == 0:
            raise ValueError(
                f'positions_rad shape {positions.shape} vs (N, {ARM_DOF}); '
                'give one row of six joint angles per waypoint'
            )
        if times.shape != (positions.shape[0],):
            raise ValueError(
                f'times_s shape {times.shape} vs ({positions.shape[0]},); '
                'give one arrival time per waypoint'
            )
        if not (np.all(np.isfinite(positions)) and np.all(np.isfinite(times))):
            raise ValueError('positions_rad or times_s contains NaN or inf; give finite numbers')
        if times[0] <= 0.0 or np.any(np.diff(times) <= 0.0):
            raise ValueError(
                f'times_s {np.round(times, 3).tolist()} vs strictly increasing and > 0 s; '
                'give arrival times in seconds from now'
            )
        return positions, times


def refusal(
    start_q: np.ndarray,
    waypoints: np.ndarray,
    times: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    max_velocity: np.ndarray,
) -> str:
    """
    Return why the station refuses this trajectory, or '' when it may run.

    :param start_q: measured joints now, radians.
    :param waypoints: N x 6 waypoints, radians.
    :param times: N arrival times, seconds from now.
    :param lower: soft lower limits, radians.
    :param upper: soft upper limits, radians.
    :param max_velocity: joint speed limits, rad/s.
    :returns: a message ``<what> <observed> vs <limit>; <next step>``, or ''.
    """
    for n, q in enumerate(waypoints):
        for j in range(ARM_DOF):
            if q[j] < lower[j] - 1e-9 or q[j] > upper[j] + 1e-9:
                return (
                    f'waypoint {n} joint{j + 1}={q[j]:.3f} rad vs soft limits '
                    f'[{lower[j]:.3f}, {upper[j]:.3f}] rad; choose a target inside the limits'
                )
    path = np.vstack([start_q, waypoints])
    steps = np.diff(np.concatenate([[0.0], times]))
    speed = np.abs(np.diff(path, axis=0)) / steps[:, None]
    n, j = np.unravel_index(int(np.argmax(speed / max_velocity)), speed.shape)
    if speed[n, j] > max_velocity[j]:
        return (
            f'segment to waypoint {n} joint{j + 1} needs {speed[n, j]:.2f} rad/s vs limit '
            f'{max_velocity[j]:.2f} rad/s; give that waypoint a later time'
        )
    return ''


def _slopes(t: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Fritsch-Carlson slopes: zero at the ends and at local extrema, so nothing overshoots."""
    h = np.diff(t)[:, None]
    delta = np.diff(q, axis=0) / h
    v = np.zeros_like(q)
    if len(t) > 2:
        d0, d1 = delta[:-1], delta[1:]
        w0 = 2 * h[1:] + h[:-1]
        w1 = h[1:] + 2 * h[:-1]
        same_sign = d0 * d1 > 0
        with np.errstate(divide='ignore', invalid='ignore'):
            harmonic = (w0 + w1) / (w0 / d0 + w1 / d1)
        v[1:-1] = np.where(same_sign, harmonic, 0.0)
    return v

"""
Joint paths for one arm: straight TCP lines by IK waypoints, joint-space moves, and timing.

A straight line interpolates the TCP position linearly and its orientation along the
geodesic (for top-down poses that is a yaw slerp), about ``step_m`` apart, solving IK for each
waypoint seeded from the previous one. A joint jump between neighbouring waypoints larger than
``max_joint_step_rad`` means the line crosses a singularity or a branch change: the line is
refused with a reason rather than bent.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np

from . import arx_x5
from .forward import joint_vector, link_frames, transform
from .inverse import solve_ik
from .orientation import interpolate_rotation, rotation_angle_rad


@dataclass(frozen=True, slots=True)
class JointTrajectory:
    """
    Timed joint waypoints of one arm; row 0 is the start (the current joints) at t = 0.

    ``station_waypoints()`` drops the start row, giving what
    ``Station.follow_joint_trajectory`` takes (times strictly increasing from now).
    """

    positions_rad: np.ndarray
    times_s: np.ndarray

    @property
    def duration_s(self) -> float:
        """Return the time of the last waypoint, seconds."""
        return float(self.times_s[-1])

    def station_waypoints(self) -> tuple[np.ndarray, np.ndarray]:
        """Return (N-1 x 6 positions, N-1 arrival times) without the start row."""
        return self.positions_rad[1:].copy(), self.times_s[1:].copy()

    def __repr__(self) -> str:
        return f'JointTrajectory({len(self.times_s)} waypoints, {self.duration_s:.2f} s)'


@dataclass(frozen=True, slots=True)
class PathResult:
    """Outcome of path planning: ``positions_rad`` (N x 6, row 0 = start) when found."""

    found: bool
    reason: str
    positions_rad: np.ndarray

    def __repr__(self) -> str:
        if self.found:
            return f'PathResult(found, {len(self.positions_rad)} waypoints)'
        return f'PathResult(found=False, reason={self.reason[:80]!r})'


def line_path(
    q_start_rad: object,
    target: object,
    *,
    world_from_base: object,
    step_m: float = 0.01,
    step_rad: float = 0.05,
    max_joint_step_rad: float = 0.2,
    free_roll: bool = False,
) -> PathResult:
    """
    Plan a straight TCP line from the pose at ``q_start_rad`` to ``target``.

    :param q_start_rad: current joints, radians.
    :param target: 4x4 goal TCP pose in the world frame.
    :param world_from_base: 4x4 mounting of the arm.
    :param step_m: waypoint spacing along the line, metres.
    :param step_rad: largest orientation change between waypoints, radians.
    :param max_joint_step_rad: largest joint change allowed between neighbouring waypoints.
    :param free_roll: match only the approach axis at each waypoint (roll left to the IK).
    :returns: a PathResult; a waypoint without IK or a joint jump is refused with a reason.
    :raises ValueError: for malformed inputs.
    """
    q = joint_vector(q_start_rad, 'q_start_rad')
    goal = transform(target, 'target')
    base = transform(world_from_base)
    start = link_frames(q, base)[-1]
    distance = float(np.linalg.norm(goal[:3, 3] - start[:3, 3]))
    turn = rotation_angle_rad(start[:3, :3], goal[:3, :3])
    count = max(1, math.ceil(distance / step_m), math.ceil(turn / step_rad))
    rows = [q]
    for k in range(1, count + 1):
        s = k / count
        pose = np.eye(4)
        pose[:3, :3] = interpolate_rotation(start[:3, :3], goal[:3, :3], s)
        pose[:3, 3] = (1 - s) * start[:3, 3] + s * goal[:3, 3]
        ik = solve_ik(pose, rows[-1], world_from_base=base, free_roll=free_roll, extra_seeds=0)
        x, y, z = pose[:3, 3]
        if not ik.found:
            return PathResult(False, (
                f'straight line has no IK at waypoint {k}/{count} ({x:.3f}, {y:.3f}, {z:.3f}) m: '
                f'{ik.reason}; move in two shorter lines or use a joint move'
            ), np.array(rows))
        jump = np.abs(ik.q_rad - rows[-1])
        worst = int(np.argmax(jump))
        if jump[worst] > max_joint_step_rad:
            return PathResult(False, (
                f'straight line makes {arx_x5.JOINT_NAMES[worst]} jump {jump[worst]:.2f} rad at '
                f'waypoint {k}/{count} ({x:.3f}, {y:.3f}, {z:.3f}) m vs {max_joint_step_rad:.2f} '
                f'rad (near a singularity); use a joint move'
            ), np.array(rows))
        rows.append(ik.q_rad)
    return PathResult(True, '', np.array(rows))


def joint_path(q_start_rad: object, q_goal_rad: object, step_rad: float = 0.05) -> np.ndarray:
    """
    Return joint waypoints (N x 6, row 0 = start) along the joint-space line to ``q_goal_rad``.

    :param q_start_rad: current joints, radians.
    :param q_goal_rad: goal joints, radians.
    :param step_rad: largest change of any joint between waypoints, radians.
    :raises ValueError: for malformed inputs.
    """
    q0 = joint_vector(q_start_rad, 'q_start_rad')
    q1 = joint_vector(q_goal_rad, 'q_goal_rad')
    count = max(1, math.ceil(float(np.max(np.abs(q1 - q0))) / step_rad))
    fractions = np.linspace(0.0, 1.0, count + 1)[:, None]
    return q0 + fractions * (q1 - q0)


def time_waypoints(
    positions_rad: np.ndarray,
    *,
    world_from_base: object,
    max_velocity_rad_s: np.ndarray,
    tcp_speed_m_s: float,
    min_segment_s: float = 0.01,
) -> JointTrajectory:
    """
    Time joint waypoints so that no joint and no TCP segment exceeds its speed.

    Each segment takes the longest of: the largest joint change over that joint's speed,
    the TCP distance over ``tcp_speed_m_s``, and ``min_segment_s``.

    :param positions_rad: N x 6 waypoints, row 0 = start.
    :param world_from_base: 4x4 mounting of the arm (TCP speeds are frame-independent).
    :param max_velocity_rad_s: per-joint speed to plan with, rad/s.
    :param tcp_speed_m_s: TCP speed to plan with, m/s.
    :param min_segment_s: shortest segment duration, seconds.
    :returns: the JointTrajectory, times from 0.
    """
    base = transform(world_from_base)
    tcp = np.array([link_frames(q, base)[-1, :3, 3] for q in positions_rad])
    joint_s = np.max(np.abs(np.diff(positions_rad, axis=0)) / max_velocity_rad_s, axis=1)
    tcp_s = np.linalg.norm(np.diff(tcp, axis=0), axis=1) / tcp_speed_m_s
    segments = np.maximum(np.maximum(joint_s, tcp_s), min_segment_s)
    times = np.concatenate([[0.0], np.cumsum(segments)])
    return JointTrajectory(np.array(positions_rad, dtype=float), times)

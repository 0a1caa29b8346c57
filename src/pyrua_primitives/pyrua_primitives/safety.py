"""
The safety gate: checks a planned joint trajectory before anything reaches the Station.

Every motion passes ``check_trajectory`` first; a refused one is never executed. Rules:

1. every waypoint inside the joint soft limits;
2. joint speeds (and the TCP speed) within their limits on every segment;
3. the TCP and the finger tips inside the workspace box (given in the arm's base frame);
4. TCP z >= table + ``table_clearance_m``, unless the motion is an explicit descent to a
   measured object (``descend=True``); a motion that starts below that height (a lift after
   a descent) may not go lower than its start; the finger tips never go below
   table + ``fingertip_floor_m``, and arm links 2..6 never dip below the table top;
5. the two arms' link capsules (reference §1.5) at least ``arm_distance_margin_m`` apart,
   against the other arm held at its current joints.

The geometric rules are checked on the waypoints and on joint-space samples between them
(no joint changes more than ``check_step_rad`` between samples). The capsules are a
clearance approximation, not the twin's collision model, and the gate knows nothing of
objects on the table.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np

from .kinematics import arx_x5
from .kinematics.forward import fingertip_position, joint_vector, link_frames, transform
from .kinematics.path import JointTrajectory

# IK noise allowed below the start height of a motion that starts inside the clearance zone.
_START_SLACK_M = 1e-3


@dataclass(frozen=True, slots=True, kw_only=True)
class SafetyConfig:
    """Thresholds of the safety gate; metres, radians and seconds."""

    table_clearance_m: float = 0.03
    fingertip_floor_m: float = 0.003
    arm_distance_margin_m: float = 0.05
    workspace_min_base_m: tuple[float, float, float] = (-0.15, -0.75, -0.05)
    workspace_max_base_m: tuple[float, float, float] = (0.75, 0.75, 0.65)
    joint_speed_fraction: float = 1.0
    tcp_speed_limit_m_s: float = arx_x5.TCP_SPEED_LIMIT_M_S
    check_step_rad: float = 0.03

    def __post_init__(self) -> None:
        for name, low, high in (
            ('table_clearance_m', 0.0, 0.5),
            ('fingertip_floor_m', 0.0, 0.1),
            ('arm_distance_margin_m', 0.0, 0.5),
            ('joint_speed_fraction', 1e-3, 1.0),
            ('tcp_speed_limit_m_s', 1e-3, arx_x5.TCP_SPEED_LIMIT_M_S),
            ('check_step_rad', 1e-3, 0.2),
        ):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and low <= value <= high):
                raise ValueError(
                    f'SafetyConfig.{name}={value!r} vs allowed [{low}, {high}]; pick a value '
                    'inside the range'
                )
        lo, hi = self.workspace_min_base_m, self.workspace_max_base_m
        if len(lo) != 3 or len(hi) != 3 or not all(a < b for a, b in zip(lo, hi, strict=True)):
            raise ValueError(
                f'SafetyConfig.workspace_min_base_m={lo} vs workspace_max_base_m={hi}; give '
                'three (x, y, z) values each, every min below its max'
            )


@dataclass(frozen=True, slots=True)
class SafetyResult:
    """Verdict of the gate: ``safe`` first, the first broken rule, then what was measured."""

    safe: bool
    reason: str
    min_arm_distance_m: float
    min_tcp_clearance_m: float

    def __repr__(self) -> str:
        if not self.safe:
            return f'SafetyResult(safe=False, reason={self.reason[:80]!r})'
        return (
            f'SafetyResult(safe, arms {self.min_arm_distance_m * 1000:.0f} mm apart, '
            f'TCP {self.min_tcp_clearance_m * 1000:.0f} mm above table)'
        )


def check_trajectory(
    trajectory: JointTrajectory,
    *,
    world_from_base: object,
    other_world_from_base: object,
    other_q_rad: object,
    table_z_m: float,
    descend: bool = False,
    config: SafetyConfig | None = None,
    lower_rad: np.ndarray = arx_x5.LOWER_LIMITS_RAD,
    upper_rad: np.ndarray = arx_x5.UPPER_LIMITS_RAD,
    max_velocity_rad_s: np.ndarray = arx_x5.VELOCITY_LIMITS_RAD_S,
) -> SafetyResult:
    """
    Check a joint trajectory of one arm against every rule of the gate.

    :param trajectory: the planned motion (row 0 = the current joints at t = 0).
    :param world_from_base: 4x4 mounting of the moving arm.
    :param other_world_from_base: 4x4 mounting of the other arm.
    :param other_q_rad: the other arm's current joints, radians.
    :param table_z_m: table top z in the world frame (``Station.table_height_m()``).
    :param descend: True only for an explicit descent to a measured object.
    :param config: the gate thresholds; None uses the SafetyConfig defaults.
    :param lower_rad: lower joint limits, radians.
    :param upper_rad: upper joint limits, radians.
    :param max_velocity_rad_s: joint speed limits, rad/s (scaled by the config fraction).
    :returns: a SafetyResult whose reason names the first broken rule with its numbers.
    :raises ValueError: for malformed trajectories, transforms or joints.
    """
    config = SafetyConfig() if config is None else config
    positions = np.asarray(trajectory.positions_rad, dtype=float)
    times = np.asarray(trajectory.times_s, dtype=float)
    if positions.ndim != 2 or positions.shape[1] != 6 or len(times) != len(positions):
        raise ValueError(
            f'trajectory has positions {positions.shape} and times {times.shape} vs (N, 6) '
            'and (N,); build it with the kinematics path functions'
        )
    if not (np.all(np.isfinite(positions)) and np.all(np.isfinite(times))):
        raise ValueError('trajectory has NaN or infinite values vs finite; re-plan the motion')
    base = transform(world_from_base)
    other = link_frames(joint_vector(other_q_rad, 'other_q_rad'), other_world_from_base)
    reason = _limit_reason(positions, lower_rad, upper_rad) or _speed_reason(
        positions, times, max_velocity_rad_s * config.joint_speed_fraction, base, config
    )
    if reason:
        return SafetyResult(False, reason, math.nan, math.nan)
    return _geometry_verdict(_samples(positions, config.check_step_rad), base, other,
                             float(table_z_m), descend, config)


def _limit_reason(positions, lower, upper) -> str:
    for k, q in enumerate(positions):
        bad = np.flatnonzero((q < lower - 1e-9) | (q > upper + 1e-9))
        if bad.size:
            i = int(bad[0])
            return (
                f'{arx_x5.JOINT_NAMES[i]}={q[i]:+.3f} rad at waypoint {k} vs soft limits '
                f'[{lower[i]:+.2f}, {upper[i]:+.2f}] rad; choose a target inside the envelope'
            )
    return ''


def _speed_reason(positions, times, max_velocity, base, config) -> str:
    dt = np.diff(times)
    if np.any(dt <= 0.0):
        return 'trajectory times are not strictly increasing vs required; re-time the motion'
    speeds = np.abs(np.diff(positions, axis=0)) / dt[:, None]
    ratio = speeds / max_velocity
    k, i = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    if ratio[k, i] > 1.0 + 1e-9:
        return (
            f'{arx_x5.JOINT_NAMES[i]} speed {speeds[k, i]:.2f} rad/s on segment {k} vs limit '
            f'{max_velocity[i]:.2f} rad/s; slow the motion down'
        )
    tcp = np.array([link_frames(q, base)[-1, :3, 3] for q in positions])
    tcp_speed = np.linalg.norm(np.diff(tcp, axis=0), axis=1) / dt
    k = int(np.argmax(tcp_speed))
    if tcp_speed[k] > config.tcp_speed_limit_m_s + 1e-9:
        return (
            f'TCP speed {tcp_speed[k]:.2f} m/s on segment {k} vs limit '
            f'{config.tcp_speed_limit_m_s:.2f} m/s; slow the motion down'
        )
    return ''


def _samples(positions, step_rad) -> np.ndarray:
    rows = [positions[:1]]
    for q0, q1 in zip(positions[:-1], positions[1:], strict=True):
        count = max(1, math.ceil(float(np.max(np.abs(q1 - q0))) / step_rad))
        fractions = np.arange(1, count + 1)[:, None] / count
        rows.append(q0 + fractions * (q1 - q0))
    return np.concatenate(rows)


def capsules(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """
    Return the arm's collision capsules in the frames' frame from ``link_frames`` output.

    :returns: (start points K x 3, end points K x 3, radii K), in ``arx_x5.LINK_CAPSULES`` order.
    """
    starts = np.array([frames[c[0]] @ (*c[1], 1.0) for c in arx_x5.LINK_CAPSULES])[:, :3]
    ends = np.array([frames[c[0]] @ (*c[2], 1.0) for c in arx_x5.LINK_CAPSULES])[:, :3]
    radii = np.array([c[3] for c in arx_x5.LINK_CAPSULES])
    return starts, ends, radii


def segment_distances(p1, q1, p2, q2) -> np.ndarray:
    """Return the distances between segments p1-q1 and p2-q2 (broadcast over leading axes)."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a = np.sum(d1 * d1, axis=-1)
    e = np.sum(d2 * d2, axis=-1)
    b = np.sum(d1 * d2, axis=-1)
    c = np.sum(d1 * r, axis=-1)
    f = np.sum(d2 * r, axis=-1)
    denom = a * e - b * b
    s = np.where(denom > 1e-12, np.clip((b * f - c * e) / np.maximum(denom, 1e-12), 0, 1), 0)
    t = (b * s + f) / e
    s = np.where(t < 0, np.clip(-c / a, 0, 1), np.where(t > 1, np.clip((b - c) / a, 0, 1), s))
    t = np.clip(t, 0, 1)
    gap = p1 + d1 * s[..., None] - (p2 + d2 * t[..., None])
    return np.linalg.norm(gap, axis=-1)


SOLVED_POSE_SLACK_M = 5e-4
"""How far a sampled pose of a planned motion may sit below a floor that its target meets.
The target itself is checked exactly (``check_tcp_target``); the poses along the way come from
IK solved to 0.1 mm and joint-space samples between them, so an exact compare refused the
documented lowest descent (``lowest_descend_z_m``) by fractions of a millimetre."""


def _link_name(k: int) -> str:
    link = arx_x5.LINK_CAPSULES[k][0]
    return 'gripper' if k == len(arx_x5.LINK_CAPSULES) - 1 else ('base' if link == 0
                                                                 else f'link{link}')


def _geometry_verdict(samples, base, other_frames, table_z, descend, config) -> SafetyResult:
    inverse_base = np.linalg.inv(base)
    lo, hi = np.array(config.workspace_min_base_m), np.array(config.workspace_max_base_m)
    o_start, o_end, o_radius = capsules(other_frames)
    # A motion that starts inside the clearance zone (after a descent) may leave it, but
    # never go deeper than where it started.
    start_z = float(link_frames(samples[0], base)[-1, 2, 3])
    tcp_floor = min(table_z + config.table_clearance_m, start_z - _START_SLACK_M)
    tip_floor = table_z + config.fingertip_floor_m
    min_gap, min_clear = math.inf, math.inf
    for q in samples:
        frames = link_frames(q, base)
        tcp = frames[-1]
        tip = fingertip_position(tcp)
        for label, point in (('TCP', tcp[:3, 3]), ('finger tips', tip)):
            local = inverse_base[:3, :3] @ point + inverse_base[:3, 3]
            outside = np.flatnonzero((local < lo) | (local > hi))
            if outside.size:
                axis = int(outside[0])
                x, y, z = point
                return SafetyResult(False, (
                    f'{label} at ({x:.3f}, {y:.3f}, {z:.3f}) m: {local[axis]:+.3f} m along base '
                    f'{"xyz"[axis]} vs workspace box [{lo[axis]:+.2f}, {hi[axis]:+.2f}] m; keep '
                    'the target inside the workspace'
                ), min_gap, min_clear)
        z = float(tcp[2, 3])
        min_clear = min(min_clear, z - table_z)
        if not descend and z < tcp_floor - SOLVED_POSE_SLACK_M:
            return SafetyResult(False, (
                f'z={z:.4f} m is below table clearance {tcp_floor:.4f} m; raise z to at least '
                f'{tcp_floor:.4f} or pass descend=True for a measured object'
            ), min_gap, min_clear)
        if tip[2] < tip_floor - SOLVED_POSE_SLACK_M:
            return SafetyResult(False, (
                f'finger tips z={tip[2]:.4f} m are below the floor {tip_floor:.4f} m '
                f'(table + {config.fingertip_floor_m * 1000:.0f} mm); raise z to at least '
                f'{tip_floor + z - tip[2]:.4f} (station_facts().lowest_descend_z_m): a grasp '
                'height is max(object centre z, that)'
            ), min_gap, min_clear)
        start, end, radius = capsules(frames)
        for k in arx_x5.TABLE_CHECKED_CAPSULES:
            low = min(start[k, 2], end[k, 2]) - radius[k]
            if low < table_z - 1e-9:
                return SafetyResult(False, (
                    f'{_link_name(k)} dips to z={low:.3f} m vs table top {table_z:.3f} m; '
                    'choose a target that keeps the arm above the table'
                ), min_gap, min_clear)
        gaps = segment_distances(start[:, None], end[:, None], o_start[None], o_end[None])
        gaps = gaps - radius[:, None] - o_radius[None]
        k, j = np.unravel_index(int(np.argmin(gaps)), gaps.shape)
        min_gap = min(min_gap, float(gaps[k, j]))
        if gaps[k, j] < config.arm_distance_margin_m - 1e-9:
            return SafetyResult(False, (
                f'arms come {gaps[k, j]:.3f} m apart ({_link_name(k)} vs other arm '
                f'{_link_name(j)})'
                f' vs margin {config.arm_distance_margin_m:.3f} m; move the '
                'other arm away or pick a target farther from it'
            ), min_gap, min_clear)
    return SafetyResult(True, '', min_gap, min_clear)


def check_tcp_target(start_m: object, target_m: object, table_z_m: float, *,
                     descend: bool = False, config: SafetyConfig | None = None,
                     fingertip_beyond_tcp_m: float) -> str:
    """
    Check a straight top-down TCP move of an arm that plans itself (``CartesianArm``).

    Rule 4 of the gate on the segment from ``start_m`` to ``target_m`` (a straight line is
    lowest at one of its ends): the TCP stays ``table_clearance_m`` above the table unless
    ``descend`` (a move that starts lower may rise, never sink), and the finger tips
    (``fingertip_beyond_tcp_m`` below the TCP) never go below ``fingertip_floor_m``.

    :param start_m: the TCP position now, world frame, metres.
    :param target_m: the TCP goal, world frame, metres.
    :param table_z_m: table top z in the world frame.
    :param descend: True only for an explicit descent to a measured object.
    :param config: the gate thresholds; None uses the SafetyConfig defaults.
    :param fingertip_beyond_tcp_m: how far the station's finger tips reach beyond its TCP.
    :returns: ``''`` when safe, else the broken rule with its numbers.
    """
    config = SafetyConfig() if config is None else config
    start_z = float(np.asarray(start_m, dtype=float)[2])
    x, y, z = (float(c) for c in target_m)
    tcp_floor = min(table_z_m + config.table_clearance_m, start_z - _START_SLACK_M)
    if not descend and z < tcp_floor - 1e-9:
        return (f'z={z:.4f} m is below table clearance {tcp_floor:.4f} m; raise z to at least '
                f'{tcp_floor:.4f} or pass descend=True for a measured object')
    tip_z = z - fingertip_beyond_tcp_m
    tip_floor = table_z_m + config.fingertip_floor_m
    if tip_z < tip_floor - 1e-9:
        lowest = tip_floor + fingertip_beyond_tcp_m
        return (f'finger tips z={tip_z:.4f} m at ({x:.3f}, {y:.3f}) are below the floor '
                f'{tip_floor:.4f} m (table + {config.fingertip_floor_m * 1000:.0f} mm); raise z '
                f'to at least {lowest:.4f} (station_facts().lowest_descend_z_m): a grasp '
                'height is max(object centre z, that)')
    return ''

"""
Motion planning for one arm: a target becomes a gate-checked joint trajectory or a refusal.

``plan_move`` turns a TCP target (position, top-down heading or an explicit rotation) into
IK, a straight-line or joint-space path, a timing within the speed limits, and a verdict of
the safety gate. ``plan_joint_move`` does the same for a joint target (``home``). Nothing
here moves the robot: the caller sends ``result.trajectory.station_waypoints()`` to
``Station.follow_joint_trajectory`` only when ``result.planned`` is True.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np

from .kinematics import arx_x5
from .kinematics.forward import joint_vector, link_frames, transform
from .kinematics.inverse import IkResult, solve_ik
from .kinematics.orientation import (
    approach_tilt_rad,
    check_heading,
    closing_heading_rad,
    rotation_exp,
    top_down_rotation,
)
from .kinematics.path import joint_path, JointTrajectory, line_path, time_waypoints
from .kinematics.top_down import (
    envelope_reason, top_down_distances, top_down_heights, top_down_seeds,
)
from .naming import unknown_name
from .safety import check_trajectory, SafetyConfig, SafetyResult
from .station import ARMS, check_arm, Station

PATHS: tuple[str, ...] = ('joint', 'line')
NOT_REACHABLE = 'not reachable'
"""How every reach refusal starts: beyond the arm's envelope, or no IK solution there."""
_TILT_STEP_RAD = 0.1


@dataclass(frozen=True, slots=True, kw_only=True)
class MotionConfig:
    """How motions are planned: speeds, waypoint spacing, continuity bound."""

    tcp_speed_m_s: float = 0.15
    joint_speed_fraction: float = 0.5
    step_m: float = 0.01
    step_rad: float = 0.05
    max_joint_step_rad: float = 0.2

    def __post_init__(self) -> None:
        for name, low, high in (
            ('tcp_speed_m_s', 1e-3, arx_x5.TCP_SPEED_LIMIT_M_S),
            ('joint_speed_fraction', 1e-3, 1.0),
            ('step_m', 1e-3, 0.05),
            ('step_rad', 1e-3, 0.2),
            ('max_joint_step_rad', 0.01, 1.0),
        ):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and low <= value <= high):
                raise ValueError(
                    f'MotionConfig.{name}={value!r} vs allowed [{low}, {high}]; pick a value '
                    'inside the range'
                )


@dataclass(frozen=True, slots=True, kw_only=True)
class MotionScene:
    """What planning needs to know about the station now (read it with ``from_station``)."""

    arm: str
    q_rad: np.ndarray
    world_from_base: np.ndarray
    other_q_rad: np.ndarray
    other_world_from_base: np.ndarray
    table_z_m: float

    def __post_init__(self) -> None:
        check_arm(self.arm)
        object.__setattr__(self, 'q_rad', joint_vector(self.q_rad, 'q_rad'))
        object.__setattr__(self, 'other_q_rad', joint_vector(self.other_q_rad, 'other_q_rad'))
        object.__setattr__(self, 'world_from_base', transform(self.world_from_base))
        object.__setattr__(
            self, 'other_world_from_base',
            transform(self.other_world_from_base, 'other_world_from_base'),
        )
        if not math.isfinite(self.table_z_m):
            raise ValueError(f'table_z_m={self.table_z_m} vs finite; pass the table height')

    @classmethod
    def from_station(cls, station: Station, arm: str) -> MotionScene:
        """Read both arms' joints, their mountings and the table height from ``station``."""
        other = ARMS[1 - ARMS.index(check_arm(arm))]
        return cls(
            arm=arm,
            q_rad=station.joint_state(arm).positions_rad,
            world_from_base=station.arm_base(arm).world_from_base,
            other_q_rad=station.joint_state(other).positions_rad,
            other_world_from_base=station.arm_base(other).world_from_base,
            table_z_m=station.table_height_m(),
        )


@dataclass(frozen=True, slots=True)
class PlanResult:
    """A checked trajectory (``planned=True``) or a refusal whose reason says why."""

    planned: bool
    reason: str
    trajectory: JointTrajectory | None = None
    goal_q_rad: np.ndarray | None = None
    heading_rad: float | None = None
    tilt_rad: float = 0.0
    safety: SafetyResult | None = None

    def __repr__(self) -> str:
        if not self.planned:
            return f'PlanResult(planned=False, reason={self.reason[:80]!r})'
        heading = ''
        if self.heading_rad is not None:
            heading = f', heading {math.degrees(self.heading_rad):.1f} deg'
        tilt = f', tilt {math.degrees(self.tilt_rad):.1f} deg' if self.tilt_rad else ''
        return (
            f'PlanResult(planned, {len(self.trajectory.times_s)} waypoints, '
            f'{self.trajectory.duration_s:.2f} s{heading}{tilt})'
        )


def plan_move(
    scene: MotionScene,
    xyz_m: object,
    heading_rad: float | None = None,
    *,
    rotation: object | None = None,
    descend: bool = False,
    path: str = 'line',
    max_tilt_rad: float = 0.0,
    motion: MotionConfig | None = None,
    safety: SafetyConfig | None = None,
) -> PlanResult:
    """
    Plan the TCP of ``scene.arm`` to ``xyz_m`` and check the motion with the safety gate.

    By default the gripper points straight down (top-down). ``heading_rad`` is the world yaw
    of the finger closing line, modulo pi (both directions are tried; the one closer to the
    current joints wins); None keeps the yaw that needs the least wrist rotation.

    :param scene: the station state (``MotionScene.from_station``).
    :param xyz_m: TCP target (finger pad centre) in the world frame, metres.
    :param heading_rad: closing-line yaw in radians, or None.
    :param rotation: an explicit 3x3 world TCP rotation instead of top-down + heading.
    :param descend: True for an explicit descent to a measured object: the table clearance
        rule is replaced by the finger-tip floor.
    :param path: ``'line'`` (straight TCP line) or ``'joint'`` (joint-space move).
    :param max_tilt_rad: largest tilt of the approach axis from vertical the caller accepts
        when top-down is out of reach; 0 refuses instead of tilting.
    :param motion: planning settings; None uses MotionConfig defaults.
    :param safety: gate thresholds; None uses SafetyConfig defaults.
    :returns: a PlanResult; unreachable or unsafe targets are refusals with a reason.
    :raises ValueError: for NaN or wrong-length inputs, an unknown path or a bad rotation.
    """
    motion = MotionConfig() if motion is None else motion
    target = _check_xyz(xyz_m)
    heading = None if heading_rad is None else check_heading(heading_rad)
    if path not in PATHS:
        raise ValueError(unknown_name('path', path, PATHS))
    if not (math.isfinite(max_tilt_rad) and 0.0 <= max_tilt_rad <= math.pi / 2):
        raise ValueError(f'max_tilt={max_tilt_rad} vs [0, pi/2]; pass an angle in radians')
    explicit = None if rotation is None else _check_rotation(rotation)
    goal, tilt = _goal(scene, target, heading, explicit, max_tilt_rad)
    if not goal.found:
        return PlanResult(False, goal.reason)
    goal_pose = link_frames(goal.q_rad, scene.world_from_base)[-1]
    if path == 'line':
        line = line_path(
            scene.q_rad, goal_pose, world_from_base=scene.world_from_base, step_m=motion.step_m,
            step_rad=motion.step_rad, max_joint_step_rad=motion.max_joint_step_rad,
        )
        if not line.found:
            return PlanResult(False, line.reason)
        positions = line.positions_rad
    else:
        positions = joint_path(scene.q_rad, goal.q_rad, motion.step_rad)
    vertical = approach_tilt_rad(goal_pose[:3, :3]) < math.pi / 4
    final_heading = closing_heading_rad(goal_pose[:3, :3]) if vertical else None
    return _timed_and_checked(scene, positions, descend, motion, safety, final_heading, tilt)


def plan_reach(
    scene: MotionScene,
    xyz_m: object,
    heading_rad: float | None = None,
    *,
    descend: bool = False,
    max_tilt_rad: float = 0.0,
    safety: SafetyConfig | None = None,
) -> PlanResult:
    """
    Check that the TCP of ``scene.arm`` can stand at ``xyz_m``, without a path to it.

    The goal pose is found as ``plan_move`` finds it, then checked by the safety gate where
    it stands (joint limits, table clearance, workspace, the other arm as it is now).

    :returns: a PlanResult whose ``trajectory`` holds the goal twice (no motion), or a
        refusal with the reason ``plan_move`` would give.
    :raises ValueError: for NaN or wrong-length inputs or a tilt outside [0, pi/2].
    """
    target = _check_xyz(xyz_m)
    heading = None if heading_rad is None else check_heading(heading_rad)
    if not (math.isfinite(max_tilt_rad) and 0.0 <= max_tilt_rad <= math.pi / 2):
        raise ValueError(f'max_tilt={max_tilt_rad} vs [0, pi/2]; pass an angle in radians')
    goal, tilt = _goal(scene, target, heading, None, max_tilt_rad)
    if not goal.found:
        return PlanResult(False, goal.reason)
    positions = np.stack([goal.q_rad, goal.q_rad])
    return _timed_and_checked(scene, positions, descend, MotionConfig(), safety, heading, tilt)


def plan_joint_move(
    scene: MotionScene,
    q_goal_rad: object,
    *,
    motion: MotionConfig | None = None,
    safety: SafetyConfig | None = None,
) -> PlanResult:
    """
    Plan a joint-space move of ``scene.arm`` to ``q_goal_rad`` (e.g. home) and check it.

    :param scene: the station state.
    :param q_goal_rad: six goal joint angles, radians.
    :param motion: planning settings; None uses MotionConfig defaults.
    :param safety: gate thresholds; None uses SafetyConfig defaults.
    :returns: a PlanResult; a goal outside the limits or an unsafe path is a refusal.
    :raises ValueError: for NaN or wrong-length joints.
    """
    motion = MotionConfig() if motion is None else motion
    positions = joint_path(scene.q_rad, joint_vector(q_goal_rad, 'q_goal_rad'), motion.step_rad)
    return _timed_and_checked(scene, positions, False, motion, safety, None, 0.0)


def _timed_and_checked(scene, positions, descend, motion, safety, heading, tilt) -> PlanResult:
    trajectory = time_waypoints(
        positions, world_from_base=scene.world_from_base,
        max_velocity_rad_s=arx_x5.VELOCITY_LIMITS_RAD_S * motion.joint_speed_fraction,
        tcp_speed_m_s=motion.tcp_speed_m_s,
    )
    verdict = check_trajectory(
        trajectory, world_from_base=scene.world_from_base,
        other_world_from_base=scene.other_world_from_base, other_q_rad=scene.other_q_rad,
        table_z_m=scene.table_z_m, descend=descend, config=safety,
    )
    if not verdict.safe:
        return PlanResult(False, verdict.reason, safety=verdict)
    return PlanResult(True, '', trajectory, positions[-1].copy(), heading, tilt, verdict)


def _check_xyz(xyz_m: object) -> np.ndarray:
    xyz = np.array(xyz_m, dtype=float).reshape(-1)
    if xyz.shape != (3,):
        raise ValueError(f'xyz_m has {xyz.size} values vs 3; pass (x, y, z) in metres')
    if not np.all(np.isfinite(xyz)):
        raise ValueError(f'xyz_m={xyz.tolist()} has NaN or infinite values vs finite; pass metres')
    return xyz


def _check_rotation(rotation: object) -> np.ndarray:
    r = np.array(rotation, dtype=float)
    if r.shape != (3, 3) or not np.all(np.isfinite(r)):
        raise ValueError(f'rotation has shape {r.shape} vs a finite (3, 3); pass a rotation')
    error = float(np.max(np.abs(r.T @ r - np.eye(3))))
    if error > 1e-6 or np.linalg.det(r) < 0:
        raise ValueError(f'rotation is off orthonormal by {error:.1e} vs 1e-6; pass a rotation')
    return r


def _goal(scene, target, heading, explicit, max_tilt) -> tuple[IkResult, float]:
    base = scene.world_from_base
    in_base = np.linalg.solve(base, np.append(target, 1.0))[:3]
    pose = np.eye(4)
    pose[:3, 3] = target
    if explicit is not None:
        pose[:3, :3] = explicit
        ik = solve_ik(pose, scene.q_rad, world_from_base=base)
        return _with_context(ik, target, 'the given rotation'), 0.0
    envelope = envelope_reason(in_base)
    if envelope and max_tilt <= 0.0:
        return IkResult(False, (
            f'{NOT_REACHABLE}: {envelope}; {_into_range(base, in_base)}, or pass '
            'max_tilt > 0 (radians) to accept a tilted approach'
        ), scene.q_rad, math.nan, math.nan), 0.0
    radial = base[:3, :3] @ np.array([in_base[0], in_base[1], 0.0])
    outward = radial / max(float(np.linalg.norm(radial)), 1e-9)
    tilt_axis = np.cross([0.0, 0.0, 1.0], outward)
    tilts = [0.0] if not envelope else []
    steps = math.floor(max_tilt / _TILT_STEP_RAD + 1e-9)
    tilts += [sign * k * _TILT_STEP_RAD for k in range(1, steps + 1) for sign in (-1, 1)]
    for tilt in tilts:
        tipped = rotation_exp(tilt * tilt_axis)
        found = [ik for ik in _top_down_solves(scene, pose, heading, tipped, tilt) if ik.found]
        if found:
            return min(found, key=lambda ik: _move_cost(ik.q_rad, scene.q_rad)), abs(tilt)
    if envelope:
        return IkResult(False, (
            f'{NOT_REACHABLE}: {envelope}, and no approach tilted up to '
            f'{math.degrees(max_tilt):.0f} deg reaches it; {_into_range(base, in_base)}'
        ), scene.q_rad, math.nan, math.nan), 0.0
    return IkResult(False, (
        f'{NOT_REACHABLE}: top-down IK at ({target[0]:.3f}, {target[1]:.3f}, {target[2]:.3f}) m '
        'failed inside the joint soft limits; move the target closer to the arm'
    ), scene.q_rad, math.nan, math.nan), 0.0


def _into_range(world_from_base: np.ndarray, in_base: np.ndarray) -> str:
    """Say, in world z or in metres from the base, where a top-down target would be reached."""
    distance = math.hypot(in_base[0], in_base[1])
    heights = top_down_heights(distance)
    if heights is not None and not heights[0] <= in_base[2] <= heights[1]:
        above = in_base[2] > heights[1]
        bound = heights[1] if above else heights[0]
        z = float((world_from_base @ np.array([in_base[0], in_base[1], bound, 1.0]))[2])
        if above:
            return f'lower z to at most {math.floor(z * 1000 + 1e-6) / 1000:.3f} at this x, y'
        return f'raise z to at least {math.ceil(z * 1000 - 1e-6) / 1000:.3f} at this x, y'
    distances = top_down_distances(float(in_base[2]))
    if distances is not None:
        bx, by = (float(c) for c in world_from_base[:2, 3])
        return (f'move x, y to {distances[0]:.2f}-{distances[1]:.2f} m from the arm base at '
                f'({bx:.2f}, {by:.2f})')
    return 'lower z and move x, y closer to the arm base'


def _top_down_solves(scene, pose, heading, tipped, tilt):
    base = scene.world_from_base
    extra = 3 if tilt == 0.0 else 0
    if heading is None:
        current_heading = closing_heading_rad(link_frames(scene.q_rad, base)[-1, :3, :3])
        candidates, q6 = [current_heading], float(scene.q_rad[5])
    else:
        candidates, q6 = [heading, heading + math.pi], None
    for candidate in candidates:
        pose = pose.copy()
        pose[:3, :3] = tipped @ top_down_rotation(candidate)
        hints = top_down_seeds(np.linalg.solve(base, pose), q6)
        if not hints:
            # The closed-form arm has no shape here (or joint6 cannot turn the fingers to
            # this closing line): nothing for the numerical IK to refine.
            continue
        yield solve_ik(pose, scene.q_rad, world_from_base=base, free_roll=heading is None,
                       hint_seeds=hints, extra_seeds=extra)


def _with_context(ik: IkResult, target: np.ndarray, what: str) -> IkResult:
    if ik.found:
        return ik
    x, y, z = target
    return IkResult(False, (
        f'{NOT_REACHABLE}: TCP at ({x:.3f}, {y:.3f}, {z:.3f}) m with {what}: {ik.reason}; '
        'move the target or change the rotation'
    ), ik.q_rad, ik.position_error_m, ik.orientation_error_rad)


def _move_cost(q: np.ndarray, current: np.ndarray) -> float:
    return float(np.max(np.abs(q - current) / arx_x5.VELOCITY_LIMITS_RAD_S))

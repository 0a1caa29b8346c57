"""
The arm primitives of ``PrimitiveLibrary``: move, reach check, home, pose, joints, wait.

Each function here is a method of ``PrimitiveLibrary`` (``self`` is the library; the class
body in ``library.py`` binds them), so its signature and docstring are the model's API
reference. Motions go through the station's arm model (``arm_models``), which plans and
checks them with the safety gate; a refusal is a MoveResult with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
import math
import numbers

import numpy as np

from .arm_models import Motion
from .cancel import CancelToken
from .facts import lowest_descend_z_m
from .kinematics.orientation import approach_tilt_rad, closing_heading_rad
from .motion import NOT_REACHABLE
from .registry import primitive
from .results import ArmPose, MoveResult, ReachResult
from .station import JointState

MAX_WAIT_S = 60.0


def call_hook(observer: object | None, hook: str, *args: object) -> None:
    """Call ``observer.<hook>(*args)`` when the observer has that hook."""
    method = getattr(observer, hook, None)
    if method is not None:
        method(*args)


def _vector3(value: object, name: str) -> np.ndarray:
    if value is None or (isinstance(value, (tuple, list)) and None in value):
        where = name if value is None else f'{name}[{list(value).index(None)}]'
        raise ValueError(f'{where} is None, an unknown value (a not-found locate has '
                         'position_m=None; an unmeasured height has z None); locate again, '
                         'robo.measure it, or pass a number')
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f'{name} must be 3 numbers (x, y, z) in metres, got {value!r}') from None
    if arr.shape != (3,):
        raise ValueError(f'{name} has shape {arr.shape} vs (3,); pass [x, y, z] in metres')
    if not np.all(np.isfinite(arr)):
        raise ValueError(f'{name}={arr.tolist()} contains NaN or inf; pass finite metres')
    return arr


def _radians(value: object, name: str, *, optional: bool = True) -> float | None:
    """Return an angle argument as float radians (None stays None where ``optional``).

    It must be a finite number within two full turns: a sum of two angles (a direction
    plus pi / 2, as the bundled programs write) stays inside, and a value past 4 pi is
    refused, not wrapped: it is almost always degrees (every repr gives a heading in
    radians, ``heading 0.63 rad``, as its ``heading_rad`` holds it).
    """
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f'{name} must be a number of radians, got {value!r}')
    if not math.isfinite(value):
        raise ValueError(f'{name}={value} is not finite; pass radians')
    if abs(value) > 4 * math.pi:
        raise ValueError(f'{name}={value:g} is more than two full turns (4 pi = 12.566 rad): '
                         f'angles are radians; if you meant {value:g} degrees, pass '
                         f'{math.radians(value):.3f} (math.radians), or a located '
                         "object's heading_rad")
    return float(value)


def _naming_other_arm(library, reason: str, arm: str, target: np.ndarray,
                      heading: float | None, *, descend: bool, max_tilt: float) -> str:
    """Return a refusal ``reason``, ending '; the <other> arm reaches ...' if due.

    Added only to a reach refusal (``motion.NOT_REACHABLE``), so that a caller who picked
    the arm on the wrong side learns which one to use; not when this arm holds an object
    (the other arm would not carry it) or when no other arm reaches the point either.
    Where the other arm refuses the exact point for another limit (a block's centre is
    below the finger-tip floor), it is asked about the same x, y at the lowest descent, and
    the hint names that height.
    """
    if not reason.startswith(NOT_REACHABLE) or library.pose(arm).held:
        return reason
    lowest = lowest_descend_z_m(library.station.table_height_m(),
                                library.config.safety.fingertip_floor_m,
                                library.arm_model.fingertip_beyond_tcp_m)
    above = np.array([target[0], target[1], max(float(target[2]), lowest)])
    for other in library.arms:
        if other == arm:
            continue
        there = library.arm_model.reach(other, target, heading, descend=descend,
                                        max_tilt=max_tilt)[0]
        if not there:
            return f"{reason}; the {other} arm reaches this point: pass arm='{other}'"
        if not there.startswith(NOT_REACHABLE) and not library.arm_model.reach(
                other, above, heading, descend=True, max_tilt=max_tilt)[0]:
            return (f'{reason}; the {other} arm reaches this x, y at z >= {above[2]:.3f} '
                    f"with descend=True: pass arm='{other}'")
    return reason


def _move_result(library, arm: str, target: np.ndarray, motion: Motion) -> MoveResult:
    """Return the MoveResult of a motion (or of its refusal) from the measured pose."""
    pose = library.pose(arm)
    error = float(np.linalg.norm(np.subtract(pose.position_m, target)))
    target_m = tuple(float(c) for c in target)
    if isinstance(motion, str):
        return MoveResult(reached=False, reason=motion, arm=arm, target_m=target_m,
                          final_m=pose.position_m, final_heading_rad=pose.heading_rad,
                          error_m=error, duration_s=0.0)
    tolerance = library.config.position_tolerance_m
    reason = ''
    if not motion.completed:
        reason = f'motion stopped: {motion.reason}'
    elif error > tolerance:
        reason = (f'ended {error * 1000:.1f} mm from the target vs tolerance '
                  f'{tolerance * 1000:.1f} mm; something may be blocking the gripper: look '
                  'with robo.show')
    return MoveResult(reached=not reason, reason=reason, arm=arm, target_m=target_m,
                      final_m=pose.position_m, final_heading_rad=pose.heading_rad,
                      error_m=error, duration_s=float(motion.duration_s))


@primitive()
def joints(self, arm: str) -> JointState:
    """
    Read an arm's joint angles and gripper opening from its encoders.

    :param arm: 'left' or 'right'.
    :returns: JointState with positions_rad (joint1..joint6, radians; printed in
        degrees), velocities_rad_s and gripper_width_m.
    """
    state = self.station.joint_state(self._arm(arm))
    call_hook(self.observer, 'joint_state', state)
    return state


@primitive()
def pose(self, arm: str) -> ArmPose:
    """
    Read where an arm's gripper is (forward kinematics of the measured joints).

    :param arm: 'left' or 'right'.
    :returns: ArmPose with position_m (the point between the finger pads, world frame,
        metres), heading_rad (yaw of the line the fingers close along), tilt_rad (0 =
        pointing straight down), gripper_width_m and held (checked now: False once a
        grasped object has slipped out).
    """
    state = self.joints(arm)
    tcp = self.arm_model.tcp_pose(arm, state.positions_rad)
    rotation = tcp[:3, :3]
    held = self._closed[arm] and state.gripper_width_m > self.config.min_held_width_m
    return ArmPose(arm=arm, position_m=tuple(float(c) for c in tcp[:3, 3]),
                   heading_rad=closing_heading_rad(rotation),
                   tilt_rad=approach_tilt_rad(rotation),
                   gripper_width_m=state.gripper_width_m, held=bool(held))


@primitive()
def wait(self, seconds: float, *, cancel: CancelToken | None = None) -> float:
    """
    Let time pass with both arms holding still (e.g. for something to settle).

    :param seconds: 0 to 60 seconds.
    :returns: the station seconds actually waited (less if the episode was cancelled).
    """
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) \
            or not 0 <= seconds <= MAX_WAIT_S:
        raise ValueError(f'seconds={seconds!r} vs allowed [0, {MAX_WAIT_S:.0f}]; '
                         'wait in shorter steps')
    start = self.station.time_s()
    if seconds > 0:
        # Holding one arm's current joints is a motion every station can execute; it
        # lets the station's time pass (the other arm holds its last command).
        arm = self.arms[0]
        hold = self.station.joint_state(arm).positions_rad
        self.station.follow_joint_trajectory(arm, hold[None, :],
                                             np.array([float(seconds)]), cancel)
    return round(self.station.time_s() - start, 3)


@primitive(acting=True, action='MoveTo')
def move_to(self, arm: str, xyz: Sequence[float], heading: float | None = None, *,
            descend: bool = False, max_tilt: float = 0.0, path: str = 'line',
            relative: bool = False, cancel: CancelToken | None = None) -> MoveResult:
    """
    Move an arm's gripper, pointing straight down, to a point (straight-line path).

    :param arm: 'left' or 'right'. Pointing straight down, the gripper reaches only
        the heights and distances from its arm's base that the station facts list
        (pass max_tilt to go higher).
    :param xyz: target [x, y, z] of the point between the finger pads, world frame,
        metres. The finger tips reach below this point by the station facts' finger-tip
        offset. An object held is centred between the pads where it was grasped:
        grasped with the pads at its centre, its centre moves with this point.
    :param heading: yaw in radians of the line along which the fingers close (0 = along
        world x); pass a located object's heading_rad to grasp across its sides. The
        gripper is symmetric: h and h + pi are the same grasp (either is used).
        Default: keep the current wrist yaw as far as possible.
    :param descend: False keeps the point between the pads above the table by the
        station facts' clearance; pass True for the final descent onto a located object
        (then only the finger tips must stay above the table, by the facts' smaller
        clearance). The lowest z it accepts is robo.station_facts().lowest_descend_z_m,
        above a block's centre z on the table: grasp at z = max(centre z,
        lowest_descend_z_m).
    :param max_tilt: largest tilt of the gripper from straight down, radians, accepted
        when straight down cannot reach the target (e.g. higher than the station facts'
        top). Default 0: refuse instead of tilting.
    :param path: 'line' (straight line, default) or 'joint' (joint-space move, for
        large moves with nothing in the way; try it when a line fails mid-way).
    :param relative: True: xyz is an offset from where the pads are now (e.g. [0, 0,
        0.05] lifts 5 cm).
    :returns: MoveResult with reached, final_m (measured position), error_m and
        duration_s. An unreachable or unsafe target is refused before anything moves:
        reached=False and a reason that names the limit (reach, table clearance,
        workspace, joint or speed limit, distance to the other arm); out of this arm's
        reach, the reason ends by naming the other arm where that one reaches the point.
    """
    self._arm(arm)
    target = _vector3(xyz, 'xyz')
    if relative:
        target = target + np.asarray(self.pose(arm).position_m)
    heading = _radians(heading, 'heading')
    max_tilt = _radians(max_tilt, 'max_tilt', optional=False)
    motion = self.arm_model.move(arm, target, heading, descend=bool(descend),
                                 max_tilt=max_tilt, path=path, cancel=cancel)
    if isinstance(motion, str):
        motion = _naming_other_arm(self, motion, arm, target, heading, descend=bool(descend),
                                   max_tilt=max_tilt)
    return _move_result(self, arm, target, motion)


@primitive()
def reachable(self, arm: str, xyz: Sequence[float], heading: float | None = None, *,
              descend: bool = False, max_tilt: float = 0.0) -> ReachResult:
    """
    Check, without moving, whether move_to(arm, xyz, heading, ...) could end there.

    :returns: ReachResult with reachable, reason (the limit, as move_to would say it)
        and base_distance_m (horizontal distance from the arm's base). The path there
        is not checked.
    """
    self._arm(arm)
    target = _vector3(xyz, 'xyz')
    heading = _radians(heading, 'heading')
    max_tilt = _radians(max_tilt, 'max_tilt', optional=False)
    base = self.station.arm_base(arm).world_from_base[:2, 3]
    reason, tilt = self.arm_model.reach(arm, target, heading, descend=bool(descend),
                                        max_tilt=max_tilt)
    reason = _naming_other_arm(self, reason, arm, target, heading, descend=bool(descend),
                               max_tilt=max_tilt)
    return ReachResult(reachable=not reason, reason=reason, arm=arm,
                       target_m=tuple(float(c) for c in target),
                       base_distance_m=float(np.hypot(*(target[:2] - base))),
                       tilt_rad=float(tilt))


@primitive(acting=True)
def home(self, arm: str, *, cancel: CancelToken | None = None) -> MoveResult:
    """
    Move an arm back to its ready pose above the table (joint-space move).

    The ready pose is high and tilted, not pointing straight down: move_to refuses its
    position as a target. From it, move_to the point above where the gripper goes next
    (e.g. table z + 0.08), which a held object follows.

    :param arm: 'left' or 'right'.
    :returns: MoveResult (reached=False with a reason if the path is unsafe).
    """
    self._arm(arm)
    target, motion = self.arm_model.home(arm, cancel)
    return _move_result(self, arm, target, motion)

"""
Results of the motion and gripper primitives, as the model reads them.

Each is a frozen dataclass: the success flag first, then ``reason`` ('' on success), then
the data, with a one-line repr in millimetres and degrees (a heading in radians: the unit
the primitives take).
``LocateResult``, ``BackProjectResult`` and ``CameraMeta`` live with the perception code that
makes them.
Field names are mirrored one to one by the ``pyrua_msgs`` action results.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

Vec3 = tuple[float, float, float]


def _xyz(v: Vec3) -> str:
    return f'({v[0]:.3f}, {v[1]:.3f}, {v[2]:.3f}) m'


def heading_text(heading_rad: float) -> str:
    """
    Return 'heading 0.63 rad' for a heading in radians.

    Small models copy the number they read, and the primitives take radians, so every repr
    that shows a heading shows radians only (Qwen2.5-Coder-1.5B copied '36 deg' as 36 even
    when '= 0.63 rad' followed).
    """
    return f'heading {heading_rad:.2f} rad'


@dataclass(frozen=True, slots=True)
class MoveResult:
    """
    Outcome of ``move_to`` or ``home``.

    ``reached`` is True when the tool centre point ended within tolerance of the target.
    A refused move (unreachable, unsafe) has ``reached=False``, the reason, and did not
    move the arm (``duration_s == 0``). ``final_m`` and ``final_heading_rad`` are measured
    after the motion; ``error_m`` is the distance from the target.
    """

    reached: bool
    reason: str
    arm: str
    target_m: Vec3
    final_m: Vec3
    final_heading_rad: float
    error_m: float
    duration_s: float

    def __repr__(self) -> str:
        if self.reached:
            return (f'MoveResult(reached, {self.arm} at {_xyz(self.final_m)}, '
                    f'{heading_text(self.final_heading_rad)}, error '
                    f'{self.error_m * 1000:.1f} mm, {self.duration_s:.1f} s)')
        return f'MoveResult(reached=False, {self.arm}, reason={self.reason!r})'


@dataclass(frozen=True, slots=True)
class GripperResult:
    """
    Outcome of ``open_gripper`` or ``close_gripper``.

    ``held`` is the grasp width check: after closing, the fingers stopped on something
    wider than ``min_held_width_m`` instead of closing fully. After opening it is False.
    ``width_m`` is the measured opening between the finger pads.
    """

    held: bool
    reason: str
    arm: str
    action: str
    """``'open'`` or ``'close'``."""
    width_m: float
    commanded_width_m: float

    def __repr__(self) -> str:
        width = f'width {self.width_m * 1000:.1f} mm'
        if self.action == 'open':
            state = 'open' if not self.reason else f'open, {self.reason}'
            return f'GripperResult({self.arm} {state}, {width})'
        if self.held:
            return f'GripperResult(held, {self.arm} closed on an object, {width})'
        return f'GripperResult(held=False, {self.arm}, {width}, reason={self.reason!r})'


@dataclass(frozen=True, slots=True)
class ArmPose:
    """
    Where an arm's tool centre point is, from the joint encoders.

    ``heading_rad`` is the yaw of the line along which the fingers close;
    ``tilt_rad`` is the angle between the gripper's approach axis and straight down.
    ``held`` is the grasp width check made again now: the gripper was last closed and its
    fingers still stand apart on something.
    """

    arm: str
    position_m: Vec3
    heading_rad: float
    tilt_rad: float
    gripper_width_m: float
    held: bool = False

    def __repr__(self) -> str:
        held = ', held' if self.held else ''
        return (f'ArmPose({self.arm}, tcp {_xyz(self.position_m)}, '
                f'{heading_text(self.heading_rad)}, tilt '
                f'{math.degrees(self.tilt_rad):.0f} deg, gripper '
                f'{self.gripper_width_m * 1000:.1f} mm{held})')


@dataclass(frozen=True, slots=True)
class ReachResult:
    """
    Whether an arm's gripper can reach a point, checked without moving (``reachable``).

    ``reachable`` is True when inverse kinematics finds a pose inside the joint limits that
    passes the safety gate there (table clearance, workspace, the other arm where it is
    now). ``base_distance_m`` is the horizontal distance from the arm's base to the point.
    """

    reachable: bool
    reason: str
    arm: str
    target_m: Vec3
    base_distance_m: float
    tilt_rad: float
    """Tilt from straight down the pose needs (0 unless ``max_tilt`` allowed more)."""

    def __repr__(self) -> str:
        if self.reachable:
            tilt = f', tilt {math.degrees(self.tilt_rad):.0f} deg' if self.tilt_rad else ''
            return (f'ReachResult(reachable, {self.arm} to {_xyz(self.target_m)}, '
                    f'{self.base_distance_m:.3f} m from its base{tilt})')
        return f'ReachResult(reachable=False, {self.arm}, reason={self.reason!r})'

"""
The Station interface: the hardware boundary every primitive talks through.

A Station is what a real dual-arm ARX-X5 station gives a program, and nothing more: joint
state, joint trajectories, gripper command and width, camera frames captured on demand,
camera models, and the station's fixed calibration (table height, arm bases).
It never exposes object poses, task state or success (DESIGN.md rule 4).

Implementations: ``pyrua_sim.MujocoStation`` (the twin, in process), a ROS station
(topics and ``control_msgs`` actions) and a bag station (replay).

Conventions:

- World frame = station frame: metres, z up, arms at -y facing +y, left arm at x < 0.
- Arms are ``'left'`` and ``'right'``; cameras ``'head'``, ``'left_wrist'``, ``'right_wrist'``
  (the ARX-X5 station). A station of another robot declares its own names as ``arms`` and
  ``cameras`` attributes (``station_arms`` / ``station_cameras`` read them); the library,
  the prompt and the safety gate take the names from there.
- A robot that is not an ARX-X5 moves its gripper itself: it implements ``CartesianArm``
  (TCP pose, home pose, a Cartesian move through its own kinematics and controller), and
  the library sends ``move_to`` / ``home`` / ``pose`` there instead of the ARX kinematics
  (``arm_models.arm_model`` picks the model; a station may also declare its own
  ``arm_model``).
- Joint vectors are the six arm joints ``joint1..joint6`` in radians; the gripper is a
  width in metres (distance between the finger pads, 0 = closed).
- Camera poses use the OpenCV optical convention: x right, y down, z forward (viewing
  direction). ``world_from_camera`` maps camera-frame points to world points.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Protocol, runtime_checkable

import numpy as np

from .cancel import CancelToken
from .naming import unknown_name

ARMS: tuple[str, ...] = ('left', 'right')
CAMERAS: tuple[str, ...] = ('head', 'left_wrist', 'right_wrist')
ARM_DOF = 6


@dataclass(frozen=True, slots=True)
class CameraIntrinsics:
    """Pinhole intrinsics in pixels for an image of ``width`` x ``height``."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float

    @property
    def matrix(self) -> np.ndarray:
        """Return the 3x3 camera matrix K."""
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def fovy_deg(self) -> float:
        """Return the vertical field of view in degrees."""
        return math.degrees(2.0 * math.atan(self.height / (2.0 * self.fy)))

    def __repr__(self) -> str:
        return (
            f'CameraIntrinsics({self.width}x{self.height}, fx={self.fx:.1f}, fy={self.fy:.1f}, '
            f'cx={self.cx:.1f}, cy={self.cy:.1f})'
        )


@dataclass(frozen=True, slots=True)
class CameraModel:
    """
    Where a camera is and how it projects, at the moment it was read.

    ``world_from_camera`` is a 4x4 homogeneous transform in the OpenCV optical convention
    (x right, y down, z forward). Wrist cameras move with the arm, so read the model
    together with the frame it belongs to.
    """

    camera: str
    intrinsics: CameraIntrinsics
    world_from_camera: np.ndarray
    stamp_s: float

    @property
    def position_m(self) -> np.ndarray:
        """Return the optical centre in the world frame, metres."""
        return self.world_from_camera[:3, 3].copy()

    @property
    def forward(self) -> np.ndarray:
        """Return the unit viewing direction (optical z axis) in the world frame."""
        return self.world_from_camera[:3, 2].copy()

    def __repr__(self) -> str:
        x, y, z = self.position_m
        fx, fy, fz = self.forward
        return (
            f'CameraModel({self.camera!r}, {self.intrinsics.width}x{self.intrinsics.height}, '
            f'at ({x:.3f}, {y:.3f}, {z:.3f}) m looking ({fx:.2f}, {fy:.2f}, {fz:.2f}))'
        )


@dataclass(frozen=True, slots=True)
class CameraFrame:
    """One captured image with the camera model it was taken with."""

    camera: str
    rgb: np.ndarray
    """H x W x 3 uint8."""
    model: CameraModel
    stamp_s: float
    depth_m: np.ndarray | None = None
    """H x W float32 metres along the optical axis, or None when depth is not enabled."""

    def __repr__(self) -> str:
        h, w = self.rgb.shape[:2]
        depth = ', depth' if self.depth_m is not None else ''
        return f'CameraFrame({self.camera!r}, {w}x{h}{depth}, t={self.stamp_s:.3f} s)'


@dataclass(frozen=True, slots=True)
class JointState:
    """Measured state of one arm: six joint angles and the gripper opening."""

    arm: str
    positions_rad: np.ndarray
    velocities_rad_s: np.ndarray
    gripper_width_m: float
    stamp_s: float

    def __repr__(self) -> str:
        q = ', '.join(f'{math.degrees(v):.1f}' for v in self.positions_rad)
        return (
            f'JointState({self.arm!r}, q=[{q}] deg, '
            f'gripper={self.gripper_width_m * 1000:.1f} mm)'
        )


@dataclass(frozen=True, slots=True)
class JointLimits:
    """Position and speed limits of one arm's six joints (radians, rad/s)."""

    lower_rad: np.ndarray
    upper_rad: np.ndarray
    max_velocity_rad_s: np.ndarray
    gripper_max_width_m: float


@dataclass(frozen=True, slots=True)
class ArmBase:
    """Fixed mounting of one arm: ``world_from_base`` is a 4x4 transform (metres)."""

    arm: str
    world_from_base: np.ndarray

    def __repr__(self) -> str:
        x, y, z = self.world_from_base[:3, 3]
        return f'ArmBase({self.arm!r}, at ({x:.3f}, {y:.3f}, {z:.3f}) m)'


@dataclass(frozen=True, slots=True)
class TrajectoryResult:
    """Outcome of a joint trajectory: ``completed`` first, then why not, then the data."""

    completed: bool
    reason: str
    final_positions_rad: np.ndarray
    duration_s: float

    def __repr__(self) -> str:
        state = 'completed' if self.completed else f'stopped: {self.reason}'
        return f'TrajectoryResult({state}, {self.duration_s:.2f} s)'


@dataclass(frozen=True, slots=True)
class GripperResult:
    """
    Outcome of a gripper command.

    ``reached`` is True when the fingers got to the commanded width; a closing gripper that
    stops early on an object reports ``reached=False`` with ``stalled=True``.
    """

    reached: bool
    reason: str
    width_m: float
    stalled: bool
    duration_s: float

    def __repr__(self) -> str:
        state = 'reached' if self.reached else ('stalled' if self.stalled else self.reason)
        return f'GripperResult({state}, width={self.width_m * 1000:.1f} mm)'


@runtime_checkable
class Station(Protocol):
    """
    The hardware boundary: what a real station gives a program, and nothing more.

    Motion calls block until the motion ends, is refused, or ``cancel`` is set; they never
    raise for a physical outcome, only for misuse (unknown arm, wrong shape).
    """

    def joint_state(self, arm: str) -> JointState:
        """Return the measured joint state of ``arm``."""
        ...

    def joint_limits(self, arm: str) -> JointLimits:
        """Return the joint position and speed limits of ``arm``."""
        ...

    def follow_joint_trajectory(
        self,
        arm: str,
        positions_rad: np.ndarray,
        times_s: np.ndarray,
        cancel: CancelToken | None = None,
    ) -> TrajectoryResult:
        """
        Follow joint waypoints and block until done.

        :param arm: ``'left'`` or ``'right'``.
        :param positions_rad: N x 6 joint waypoints in radians.
        :param times_s: N strictly increasing arrival times in seconds from now.
        :param cancel: stops the motion (holding the current pose) when cancelled.
        :returns: a TrajectoryResult; a waypoint outside the joint limits is refused with
            ``completed=False`` and the reason, and nothing moves.
        """
        ...

    def command_gripper(
        self, arm: str, width_m: float, cancel: CancelToken | None = None
    ) -> GripperResult:
        """Drive the gripper to ``width_m`` (0 closes and squeezes) and report the width."""
        ...

    def capture(self, camera: str, depth: bool = False) -> CameraFrame:
        """Capture one frame now; ``depth=True`` only where depth is enabled."""
        ...

    def camera_model(self, camera: str) -> CameraModel:
        """Return the camera's current intrinsics and pose."""
        ...

    def arm_base(self, arm: str) -> ArmBase:
        """Return the fixed mounting pose of ``arm``."""
        ...

    def home_positions_rad(self, arm: str) -> np.ndarray:
        """Return the six joint angles of ``arm``'s calibrated ready pose (radians)."""
        ...

    def table_height_m(self) -> float:
        """Return the z of the table top in the world frame, metres."""
        ...

    def time_s(self) -> float:
        """Return the station clock in seconds (simulated time on the twin)."""
        ...


@runtime_checkable
class CartesianArm(Protocol):
    """
    Optional capability of a station whose arm is not an ARX-X5: it moves its gripper itself.

    The TCP frame is the library's: origin between the finger pads, x = approach axis (out
    of the fingers), y = the line the fingers close along. Poses are 4x4, world frame, metres.
    ``fingertip_beyond_tcp_m`` says how far the finger tips reach beyond the TCP along x.
    """

    fingertip_beyond_tcp_m: float

    def tcp_pose(self, arm: str) -> np.ndarray:
        """Return the measured 4x4 TCP pose of ``arm``."""
        ...

    def home_tcp_pose(self, arm: str) -> np.ndarray:
        """Return the 4x4 TCP pose of ``arm``'s ready pose."""
        ...

    def move_tcp(self, arm: str, target: np.ndarray, *, line: bool = True,
                 cancel: CancelToken | None = None) -> TrajectoryResult:
        """
        Move the TCP of ``arm`` to the 4x4 ``target`` and block until done.

        :param line: True: along a straight line; False: however the controller goes there.
        :returns: a TrajectoryResult; ``completed=False`` with the reason when stopped.
        """
        ...


def station_arms(station: object) -> tuple[str, ...]:
    """Return the arm names ``station`` declares (``arms``), default the ARX-X5 pair."""
    return tuple(getattr(station, 'arms', ARMS))


def station_cameras(station: object) -> tuple[str, ...]:
    """Return the camera names ``station`` declares (``cameras``), default the ARX-X5 three."""
    return tuple(getattr(station, 'cameras', CAMERAS))


def check_arm(arm: str, arms: tuple[str, ...] = ARMS) -> str:
    """
    Return ``arm`` if it names an arm, else raise ValueError listing the valid names.

    :param arms: the station's arm names (``station_arms``); default ``'left'``, ``'right'``.
    :raises ValueError: for a name not in ``arms``.
    """
    if arm not in arms:
        raise ValueError(unknown_name('arm', arm, arms))
    return arm


def check_camera(camera: str, cameras: tuple[str, ...] = CAMERAS) -> str:
    """
    Return ``camera`` if it names a camera, else raise ValueError listing the valid names.

    :param cameras: the station's camera names (``station_cameras``); default CAMERAS.
    :raises ValueError: for a name not in ``cameras``.
    """
    if camera not in cameras:
        raise ValueError(unknown_name('camera', camera, cameras))
    return camera

"""
The primitive library: what ``robo.<name>(...)`` does, over any Station.

Each public method is a primitive; its signature and docstring are the model's API
reference (the prompt is generated from them), so they say units, frames, and what a
failure returns, and they refer to the prompt's station facts instead of quoting a
station's numbers. Motion and gripper primitives act on the robot and go through the safety
gate; perception primitives only capture frames on request. Physical outcomes are results
(reached=False, found=False, held=False) with a reason; only misuse raises.

The primitives are written by responsibility in ``sense_primitives`` (locate, measure,
cameras), ``motion_primitives`` (move, reach, home, pose, joints, wait) and
``gripper_primitives`` (open, close, VLA); the class body below binds each as a method, so
``PrimitiveLibrary.__dict__`` and ``PRIMITIVES`` hold them all, in this order.
``station_facts`` (the numbers of the prompt's station facts, ``facts.py``) is written here.
How an arm moves is its station's arm model (``arm_models``), never a test of the
station's type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from . import gripper_primitives, motion_primitives, sense_primitives
from .arm_models import arm_model
from .facts import read_station_facts, StationFacts
from .motion import MotionConfig
from .motion_primitives import call_hook
from .perception import make_segmenter, Segmenter
from .registry import declared_primitives, primitive, PrimitiveInfo
from .results import GripperResult
from .safety import SafetyConfig
from .station import (
    CameraFrame,
    check_arm,
    check_camera,
    JointState,
    Station,
    station_arms,
    station_cameras,
)
from .vla import VlaConfig


@dataclass(frozen=True, kw_only=True)
class LibraryConfig:
    """
    Settings of the primitive library; defaults run the README episode unchanged.

    :param segmenter: perception backend: ``'color'`` (default), ``'sam3'``, or the
        privileged ``'oracle'`` (refused unless ``allow_privileged``).
    :param allow_privileged: allow a privileged (ground-truth) segmenter; never a default.
    :param use_depth: let ``locate`` use depth images (only where the station has depth).
    :param position_tolerance_m: ``move_to`` reports reached within this distance.
    :param min_held_width_m: a closed gripper wider than this is holding something.
    :param motion: planning settings (speeds, waypoint spacing).
    :param safety: safety gate thresholds.
    :param vla: the VLA policy endpoint and rollout settings (no endpoint: no VLA).
    """

    segmenter: str = 'color'
    allow_privileged: bool = False
    use_depth: bool = False
    position_tolerance_m: float = 0.01
    min_held_width_m: float = 0.004
    motion: MotionConfig = field(default_factory=MotionConfig)
    safety: SafetyConfig = field(default_factory=SafetyConfig)
    vla: VlaConfig = field(default_factory=VlaConfig)

    def __post_init__(self) -> None:
        if self.segmenter == 'oracle' and not self.allow_privileged:
            raise ValueError("segmenter 'oracle' reads simulator ground truth; it is refused "
                             'unless allow_privileged=True is set explicitly')
        for name, low, high in (('position_tolerance_m', 1e-4, 0.05),
                                ('min_held_width_m', 0.0, 0.05)):
            value = getattr(self, name)
            if not low <= value <= high:
                raise ValueError(f'library.{name}={value} vs allowed [{low}, {high}]')


class LibraryObserver(Protocol):
    """
    What the library reports as it senses (a recorder implements it).

    Goals and results are recorded around each primitive call by the caller (the episode
    world), so the library only reports what it captured.
    """

    def frame(self, frame: CameraFrame) -> None:
        """Record a captured camera frame."""

    def joint_state(self, state: JointState) -> None:
        """Record a joint state sample."""


class PrimitiveLibrary:
    """
    The agent-facing primitives over one Station.

    :param station: the hardware boundary (twin, ROS station or bag station).
    :param config: library settings.
    :param segmenter: a ready segmenter (default: built from ``config.segmenter``).
    :param observer: optional LibraryObserver: receives each captured frame and joint state.
    """

    def __init__(self, station: Station, config: LibraryConfig | None = None, *,
                 segmenter: Segmenter | None = None, observer: object | None = None) -> None:
        self.station = station
        self.config = config or LibraryConfig()
        if segmenter is None:
            options = {'allow_privileged': True} if self.config.allow_privileged else {}
            segmenter = make_segmenter(self.config.segmenter, **options)
        self.segmenter = segmenter
        self.observer = observer
        self.arms = station_arms(station)
        self.cameras = station_cameras(station)
        self.arm_model = arm_model(station, self.config.motion, self.config.safety)
        self._closed = dict.fromkeys(self.arms, False)

    def _arm(self, arm: str) -> str:
        return check_arm(arm, self.arms)

    def _camera(self, camera: str) -> str:
        return check_camera(camera, self.cameras)

    def __repr__(self) -> str:
        return f'PrimitiveLibrary({type(self.station).__name__}, {self.config.segmenter})'

    def primitives(self) -> dict[str, Callable]:
        """Return ``robo``'s primitives: name -> bound method (``show`` is the runtime's)."""
        return {name: getattr(self, name) for name in sorted(PRIMITIVES)}

    def _capture(self, camera: str) -> CameraFrame:
        frame = self.station.capture(camera, depth=self.config.use_depth)
        call_hook(self.observer, 'frame', frame)
        return frame

    def _frames(self, cameras: Sequence[str] | None) -> list[CameraFrame]:
        names = self.cameras if cameras is None else tuple(self._camera(c) for c in cameras)
        if not names:
            raise ValueError('cameras is empty; pass None (all cameras) or e.g. ["head"]')
        return [self._capture(name) for name in names]

    # --- perception (sense_primitives) ------------------------------------------------
    locate = sense_primitives.locate
    locate_all = sense_primitives.locate_all
    measure = sense_primitives.measure
    image = sense_primitives.image
    camera_meta = sense_primitives.camera_meta
    back_project = sense_primitives.back_project

    # --- state and motion (motion_primitives) -----------------------------------------
    joints = motion_primitives.joints
    pose = motion_primitives.pose
    wait = motion_primitives.wait
    move_to = motion_primitives.move_to
    reachable = motion_primitives.reachable
    home = motion_primitives.home

    # --- gripper and policy (gripper_primitives) --------------------------------------
    open_gripper = gripper_primitives.open_gripper
    close_gripper = gripper_primitives.close_gripper
    vla = gripper_primitives.vla

    def note_gripper(self, result: GripperResult) -> None:
        """
        Take in a gripper command that ran elsewhere (the primitives node, a replay).

        ``pose(arm).held`` is True only while the arm's last gripper command was a close;
        a close run by another process's library reaches this one through here.
        """
        self._closed[self._arm(result.arm)] = result.action == 'close'

    @primitive()
    def station_facts(self) -> StationFacts:
        """
        Read the numbers of the station facts section, for a program to use.

        :returns: StationFacts: table_z_m, base_xy(arm), arms (name -> ArmFacts: base_m,
            reach_m as (height above the table, nearest, farthest), top_m),
            gripper_max_width_m, fingertip_beyond_tcp_m, table_clearance_m,
            fingertip_floor_m and lowest_descend_z_m (lowest z with descend=True).
        """
        return read_station_facts(self.station, self.arm_model, self.config.safety)


HOST_METHODS = ('note_gripper', 'primitives')
"""The public methods of ``PrimitiveLibrary`` that are for the host, not ``robo``'s."""
PRIMITIVES: dict[str, PrimitiveInfo] = declared_primitives(PrimitiveLibrary)
"""The primitive registry: each ``@primitive`` method of ``PrimitiveLibrary``."""
ACTING: tuple[str, ...] = tuple(sorted(n for n, p in PRIMITIVES.items() if p.acting))
"""Primitives that act on the robot (the success guard runs before each)."""

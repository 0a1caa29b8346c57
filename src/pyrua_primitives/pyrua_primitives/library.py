"""
The primitive library: what ``robo.<name>(...)`` does, over any Station.

Each public method is a primitive; its signature and docstring are the model's API
reference (the prompt is generated from them), so they say units, frames, and what a
failure returns. Motion and gripper primitives act on the robot and go through the safety
gate; perception primitives only capture frames on request. Physical outcomes are results
(reached=False, found=False, held=False) with a reason; only misuse raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
import math
from typing import Protocol

import numpy as np

from .cancel import CancelToken
from .kinematics.forward import tcp_pose
from .kinematics.orientation import approach_tilt_rad, closing_heading_rad, top_down_rotation
from .measure import measure_object
from .motion import MotionConfig, MotionScene, plan_joint_move, plan_move, plan_reach, PlanResult
from .perception import (
    back_project as _back_project,
)
from .perception import (
    BackProjectResult,
    CameraMeta,
    LocateResult,
    make_segmenter,
    Segmenter,
)
from .perception import (
    camera_meta as _camera_meta,
)
from .perception import (
    depth_point as _depth_point,
)
from .perception import (
    locate as _locate,
)
from .perception import (
    locate_all as _locate_all,
)
from .registry import declared_primitives, primitive, PrimitiveInfo
from .results import ArmPose, GripperResult, MoveResult, ReachResult
from .safety import check_tcp_target, SafetyConfig
from .station import (
    CameraFrame,
    CartesianArm,
    check_arm,
    check_camera,
    JointState,
    Station,
    station_arms,
    station_cameras,
)
from .vla import run_configured_rollout, VlaConfig, VlaResult

MAX_WAIT_S = 60.0


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


def _call_hook(observer: object | None, hook: str, *args: object) -> None:
    method = getattr(observer, hook, None)
    if method is not None:
        method(*args)


def _maybe_hidden(reason: str) -> bool:
    """Return whether a not-found reason could come from an arm hiding the object."""
    return reason.startswith('no ') or '-like region(s) in' in reason


def _hidden_hint(away: Sequence[str], homed: Sequence[str]) -> str:
    """Say which arms were out over the table: moved home, or left there."""
    if homed:
        return f' (also with the {" and ".join(homed)} arm moved home first)'
    if not away:
        return ''
    return (f'; the {" and ".join(away)} arm is out over the table and may hide it from '
            f'the head camera: robo.home({away[0]!r}) and look again')


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

    # --- perception -----------------------------------------------------------------

    def _capture(self, camera: str) -> CameraFrame:
        frame = self.station.capture(camera, depth=self.config.use_depth)
        _call_hook(self.observer, 'frame', frame)
        return frame

    def _frames(self, cameras: Sequence[str] | None) -> list[CameraFrame]:
        names = self.cameras if cameras is None else tuple(self._camera(c) for c in cameras)
        if not names:
            raise ValueError('cameras is empty; pass None (all cameras) or e.g. ["head"]')
        return [self._capture(name) for name in names]

    @staticmethod
    def _check_query(query: object) -> None:
        if not isinstance(query, str) or not query.strip():
            raise TypeError(f"query must be a non-empty string like 'red block', got {query!r}")

    @primitive(action='Locate')
    def locate(self, query: str, cameras: Sequence[str] | None = None) -> LocateResult:
        """
        Find an object by name in fresh camera images and measure it (RGB only).

        :param query: '<colour> <noun>', e.g. 'red block', 'blue bowl', 'green zone';
            optionally prefixed by 'leftmost', 'rightmost' (smallest, largest x) or
            'nearest' (smallest y: nearest the arm bases) when several match.
            Colours: red, green, blue, yellow, orange, purple. Nouns: block, bowl, zone,
            marker, peg, button; 'hole' (white) only with the 'sam3' segmenter, not the
            default colour one. A block inside a bowl of its colour merges with the bowl.
        :param cameras: camera names to look with; default: the head camera plus each
            wrist camera. One view gives no height; a second (a wrist camera from above)
            measures it: robo.measure does that for you.
        :returns: LocateResult with ``found``, ``colour`` (as seen), ``position_m`` (x, y,
            z of the object's centre, world frame, metres), ``size_m`` (footprint w, d),
            ``height_m``, ``top_z_m`` (top surface height), ``heading_rad`` (yaw of the
            side of length w, a box's longer one: move_to(heading=h) closes the fingers
            along it, h + pi/2 along the other),
            ``height_source`` ('rgb_hull' measured by two views, 'flat', 'depth', or 'none'),
            ``bound_m`` (x, y, z error that held for 90% of such estimates), ``cameras``
            and ``note`` (why no height). Unknown values are None: z, height_m, top_z_m when
            the height was not measured; position_m when not found (then ``reason`` says
            why: unknown word, nothing seen, several matches). Never a guessed position.
        """
        self._check_query(query)
        frames = self._frames(cameras)
        return _locate(frames, query, self.segmenter, self.station.table_height_m())

    @primitive()
    def locate_all(self, query: str, cameras: Sequence[str] | None = None) -> list[LocateResult]:
        """
        Find every object that matches a query, e.g. all blocks: 'block'.

        :returns: a list of found LocateResults, left to right (smallest x first); empty
            when none matched (robo.locate says why).
        """
        self._check_query(query)
        frames = self._frames(cameras)
        return _locate_all(frames, query, self.segmenter, self.station.table_height_m())

    @primitive(acting=True)
    def measure(self, query: str, arm: str | None = None, *,
                cancel: CancelToken | None = None) -> LocateResult:
        """
        Locate an object and measure its height, moving a wrist camera above it if needed.

        :param query: as for locate.
        :param arm: the arm that may move ('left' or 'right'; pass the free one while the
            other holds something); default: the nearer one, then the other. The arm stays
            where it looked (above the object). A free arm out over the table that hides
            the object from the head camera is moved home first (the note says so).
        :returns: a LocateResult measured by the head and a wrist camera; when no
            viewpoint gave a height, the head-only result with a ``note`` saying why.
        """
        self._check_query(query)
        arms = self.arms if arm is None else (self._arm(arm),)
        rough, homed = self.locate(query), []
        if not rough.found and _maybe_hidden(rough.reason):
            # An arm over the table hides part of the object from the head camera.
            away = [a for a in self.arms if self._away_from_home(a)]
            homed = [a for a in away if a in arms and not self.pose(a).held]
            for name in homed:
                self.home(name, cancel=cancel)
            rough = self.locate(query) if homed else rough
            if not rough.found:
                return replace(rough, reason=rough.reason + _hidden_hint(away, homed))
        holders = self._holding_it(rough, arms)
        views = {a: ['head', f'{a}_wrist'] for a in arms
                 if {'head', f'{a}_wrist'} <= set(self.cameras) and a not in holders}
        bases = {a: tuple(float(c) for c in self.station.arm_base(a).world_from_base[:2, 3])
                 for a in views}

        def move(arm_name, xyz, heading, max_tilt, path='line'):
            return self.move_to(arm_name, xyz, heading, max_tilt=max_tilt, path=path,
                                cancel=cancel)

        def aim(arm_name, z):
            model = self.station.camera_model(f'{arm_name}_wrist')
            origin, forward = model.position_m, model.forward
            if forward[2] > -0.1:
                return None
            hit = origin + forward * ((z - origin[2]) / forward[2])
            return float(hit[0]), float(hit[1])

        def locate_once(q, cameras=None):
            return first.pop() if first and cameras is None else self.locate(q, cameras)

        first = [rough]
        result = measure_object(locate_once, self.locate_all, move, aim, query, views,
                                self.station.table_height_m(), bases)
        if result.found and homed:
            moved = ' and '.join(f'robo.home({a!r})' for a in homed)
            result = replace(result, note=f'found after {moved}: that arm hid it from the '
                             f'head camera' + (f'; {result.note}' if result.note else ''))
        if holders and result.found and result.height_m is None:
            held, tried = holders[0], f'; {result.note}' if views and result.note else ''
            result = replace(result, note=(
                f'{query!r} is in the {held} gripper: its own wrist camera cannot measure '
                'what it holds (it looks past the fingers); measure it with the other arm, '
                f'or use robo.pose({held!r}).position_m (a held object moves with the pads)'
                + tried))
        return result

    def _away_from_home(self, arm: str) -> bool:
        """Return whether ``arm``'s pads are more than 2 cm from its ready pose."""
        if isinstance(self.station, CartesianArm):
            home = self.station.home_tcp_pose(arm)[:3, 3]
        else:
            home = tcp_pose(self.station.home_positions_rad(arm),
                            self.station.arm_base(arm).world_from_base)[:3, 3]
        return float(np.linalg.norm(np.subtract(self.pose(arm).position_m, home))) > 0.02

    def _holding_it(self, rough: LocateResult, arms: Sequence[str]) -> list[str]:
        """Return the arms in ``arms`` whose closed gripper holds the located object."""
        if not rough.found:
            return []
        out = []
        for name in arms:
            pose = self.pose(name)
            if pose.held and math.dist(pose.position_m[:2], rough.position_m[:2]) <= 0.06:
                out.append(name)
        return out

    @primitive()
    def image(self, camera: str) -> np.ndarray:
        """
        Capture one RGB image now, for the program (it is not sent to the model).

        :param camera: 'head', 'left_wrist' or 'right_wrist'.
        :returns: an H x W x 3 uint8 array (row 0 at the top). Use robo.show(camera) to
            let the model see an image.
        """
        return self._capture(self._camera(camera)).rgb

    @primitive()
    def camera_meta(self, camera: str) -> CameraMeta:
        """
        Describe a camera now: image size, focal lengths, field of view, pose.

        :param camera: 'head', 'left_wrist' or 'right_wrist' (wrist cameras move with
            their arm).
        :returns: CameraMeta with width_px, height_px, fx_px, fy_px, hfov_deg, vfov_deg,
            position_m, forward (unit viewing direction), pitch_deg, yaw_deg.
        """
        return _camera_meta(self.station.camera_model(self._camera(camera)))

    @primitive()
    def back_project(self, camera: str, u: float, v: float,
                     z: float | None = None, *, depth: bool = False) -> BackProjectResult:
        """
        Find the world point seen at pixel (u, v), on the horizontal plane at height z.

        With ``depth=True`` (only where depth is enabled) a fresh depth image gives the
        point on whatever surface the pixel shows instead: ground a pixel of an image from
        robo.show in 3-D.

        :param camera: 'head', 'left_wrist' or 'right_wrist'.
        :param u: pixel column (0 = left edge of the image).
        :param v: pixel row (0 = top edge).
        :param z: plane height in metres (world frame); default: the table top.
        :param depth: True: the surface seen at the pixel, from a fresh depth image (z is
            then not used).
        :returns: BackProjectResult with ``hit``, ``point_m`` (x, y, z) and ``range_m``;
            ``hit=False`` with a reason when the pixel is outside the image, its ray
            misses the plane, or (depth) the pixel has no depth.
        """
        for name, value in (('u', u), ('v', v)):
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f'{name}={value!r} must be a finite pixel coordinate')
        if depth:
            if not self.config.use_depth:
                raise ValueError('depth=True vs use_depth=False: depth is not enabled here; '
                                 'enable it (pyrua run --depth) or pass a plane height z')
            frame = self._capture(self._camera(camera))
            return _depth_point(frame.model, frame.depth_m, float(u), float(v))
        plane = self.station.table_height_m() if z is None else float(z)
        if not math.isfinite(plane):
            raise ValueError(f'z={z!r} must be a finite height in metres')
        model = self.station.camera_model(self._camera(camera))
        return _back_project(model, float(u), float(v), plane)

    # --- state ----------------------------------------------------------------------

    @primitive()
    def joints(self, arm: str) -> JointState:
        """
        Read an arm's joint angles and gripper opening from its encoders.

        :param arm: 'left' or 'right'.
        :returns: JointState with positions_rad (joint1..joint6, radians; printed in
            degrees), velocities_rad_s and gripper_width_m.
        """
        state = self.station.joint_state(self._arm(arm))
        _call_hook(self.observer, 'joint_state', state)
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
        if isinstance(self.station, CartesianArm):
            tcp = self.station.tcp_pose(arm)
        else:
            tcp = tcp_pose(state.positions_rad, self.station.arm_base(arm).world_from_base)
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

    # --- acting -----------------------------------------------------------------------

    def _execute(self, arm: str, plan: PlanResult, target: np.ndarray,
                 cancel: CancelToken | None) -> MoveResult:
        if not plan.planned:
            pose = self.pose(arm)
            return MoveResult(reached=False, reason=plan.reason, arm=arm,
                              target_m=tuple(float(c) for c in target),
                              final_m=pose.position_m, final_heading_rad=pose.heading_rad,
                              error_m=float(np.linalg.norm(np.subtract(pose.position_m, target))),
                              duration_s=0.0)
        positions, times = plan.trajectory.station_waypoints()
        outcome = self.station.follow_joint_trajectory(arm, positions, times, cancel)
        pose = self.pose(arm)
        error = float(np.linalg.norm(np.subtract(pose.position_m, target)))
        reason = ''
        if not outcome.completed:
            reason = f'motion stopped: {outcome.reason}'
        elif error > self.config.position_tolerance_m:
            reason = (f'ended {error * 1000:.1f} mm from the target vs tolerance '
                      f'{self.config.position_tolerance_m * 1000:.1f} mm; something may be '
                      'blocking the gripper: look with robo.show')
        return MoveResult(reached=not reason, reason=reason, arm=arm,
                          target_m=tuple(float(c) for c in target), final_m=pose.position_m,
                          final_heading_rad=pose.heading_rad, error_m=error,
                          duration_s=float(outcome.duration_s))

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
            metres. The finger tips reach 0.02 m below this point. An object held is
            centred between the pads where it was grasped: grasped with the pads at its
            centre, its centre moves with this point.
        :param heading: yaw in radians of the line along which the fingers close (0 = along
            world x); pass a located object's heading_rad to grasp across its sides. The
            gripper is symmetric: h and h + pi are the same grasp (either is used).
            Default: keep the current wrist yaw as far as possible.
        :param descend: False keeps the point between the pads at least 0.03 m above the
            table; pass True for the final descent onto a located object (then only the
            finger tips must stay 3 mm above the table, i.e. z >= table + 0.023).
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
            workspace, joint or speed limit, distance to the other arm).
        """
        self._arm(arm)
        target = _vector3(xyz, 'xyz')
        if relative:
            target = target + np.asarray(self.pose(arm).position_m)
        for name, value in (('heading', heading), ('max_tilt', max_tilt)):
            if value is not None and (isinstance(value, bool)
                                      or not isinstance(value, (int, float))):
                raise TypeError(f'{name} must be a number of radians, got {value!r}')
        if isinstance(self.station, CartesianArm):
            return self._cartesian_move(arm, target, heading, bool(descend), path, cancel)
        scene = MotionScene.from_station(self.station, arm)
        plan = plan_move(scene, target, heading, descend=bool(descend), path=path,
                         max_tilt_rad=float(max_tilt), motion=self.config.motion,
                         safety=self.config.safety)
        return self._execute(arm, plan, target, cancel)

    def _cartesian_move(self, arm: str, target: np.ndarray, heading: float | None,
                        descend: bool, path: str, cancel: CancelToken | None) -> MoveResult:
        """Move a CartesianArm station's gripper top-down to ``target`` (its own kinematics)."""
        if path not in ('joint', 'line'):
            raise ValueError(f"path={path!r} vs 'line' or 'joint'")
        current = self.station.tcp_pose(arm)
        reason = check_tcp_target(current[:3, 3], target, self.station.table_height_m(),
                                  descend=descend, config=self.config.safety)
        if reason:
            return self._execute(arm, PlanResult(False, reason), target, cancel)
        now = closing_heading_rad(current[:3, :3])
        if heading is None:
            heading = now
        # h and h + pi close the same way: turn the wrist the shorter way.
        heading = now + ((float(heading) - now + math.pi / 2) % math.pi - math.pi / 2)
        pose = np.eye(4)
        pose[:3, :3] = top_down_rotation(heading)
        pose[:3, 3] = target
        return self._run_cartesian(arm, pose, target, path == 'line', cancel)

    def _run_cartesian(self, arm: str, pose: np.ndarray, target: np.ndarray, line: bool,
                       cancel: CancelToken | None) -> MoveResult:
        outcome = self.station.move_tcp(arm, pose, line=line, cancel=cancel)
        final = self.pose(arm)
        error = float(np.linalg.norm(np.subtract(final.position_m, target)))
        reason = '' if outcome.completed else f'motion stopped: {outcome.reason}'
        if not reason and error > self.config.position_tolerance_m:
            reason = (f'ended {error * 1000:.1f} mm from the target vs tolerance '
                      f'{self.config.position_tolerance_m * 1000:.1f} mm; something may be '
                      'blocking the gripper: look with robo.show')
        return MoveResult(reached=not reason, reason=reason, arm=arm,
                          target_m=tuple(float(c) for c in target), final_m=final.position_m,
                          final_heading_rad=final.heading_rad, error_m=error,
                          duration_s=float(outcome.duration_s))

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
        base = self.station.arm_base(arm).world_from_base[:2, 3]
        if isinstance(self.station, CartesianArm):
            # An arm that plans itself: only the safety gate's rules can be checked here.
            reason = check_tcp_target(self.station.tcp_pose(arm)[:3, 3], target,
                                      self.station.table_height_m(), descend=bool(descend),
                                      config=self.config.safety)
            return ReachResult(reachable=not reason, reason=reason, arm=arm,
                               target_m=tuple(float(c) for c in target),
                               base_distance_m=float(np.hypot(*(target[:2] - base))),
                               tilt_rad=0.0)
        scene = MotionScene.from_station(self.station, arm)
        plan = plan_reach(scene, target, heading, descend=bool(descend),
                          max_tilt_rad=float(max_tilt), safety=self.config.safety)
        return ReachResult(reachable=plan.planned, reason=plan.reason, arm=arm,
                           target_m=tuple(float(c) for c in target),
                           base_distance_m=float(np.hypot(*(target[:2] - base))),
                           tilt_rad=float(plan.tilt_rad))

    @primitive(acting=True)
    def home(self, arm: str, *, cancel: CancelToken | None = None) -> MoveResult:
        """
        Move an arm back to its ready pose above the table (joint-space move).

        :param arm: 'left' or 'right'.
        :returns: MoveResult (reached=False with a reason if the path is unsafe).
        """
        self._arm(arm)
        if isinstance(self.station, CartesianArm):
            pose = self.station.home_tcp_pose(arm)
            return self._run_cartesian(arm, pose, pose[:3, 3], False, cancel)
        home_q = self.station.home_positions_rad(arm)
        target = tcp_pose(home_q, self.station.arm_base(arm).world_from_base)[:3, 3]
        scene = MotionScene.from_station(self.station, arm)
        plan = plan_joint_move(scene, home_q, motion=self.config.motion,
                               safety=self.config.safety)
        result = self._execute(arm, plan, target, cancel)
        return result

    @primitive(acting=True, action='Gripper', goal={'action': 'open'})
    def open_gripper(self, arm: str, width: float | None = None, *,
                     cancel: CancelToken | None = None) -> GripperResult:
        """
        Open an arm's gripper.

        :param arm: 'left' or 'right'.
        :param width: opening between the finger pads in metres, from 0.01 up to the
            station facts' maximum; default: fully open.
        :returns: GripperResult with width_m, the measured opening.
        """
        self._arm(arm)
        full = self.station.joint_limits(arm).gripper_max_width_m
        commanded = full if width is None else width
        if isinstance(commanded, bool) or not isinstance(commanded, (int, float)) \
                or not 0.01 <= commanded <= full:
            raise ValueError(f'width={width!r} vs allowed [0.010, {full:.3f}] m; '
                             'omit it to open fully')
        self._closed[arm] = False
        outcome = self.station.command_gripper(arm, float(commanded), cancel)
        reason = '' if outcome.reached else f'stopped at {outcome.width_m * 1000:.1f} mm ' \
            f'({outcome.reason or "blocked"})'
        result = GripperResult(held=False, reason=reason, arm=arm, action='open',
                               width_m=float(outcome.width_m),
                               commanded_width_m=float(commanded))
        return result

    @primitive(acting=True, action='Gripper', goal={'action': 'close'})
    def close_gripper(self, arm: str, *, cancel: CancelToken | None = None) -> GripperResult:
        """
        Close an arm's gripper and check whether it holds something (grasp width check).

        :param arm: 'left' or 'right'.
        :returns: GripperResult with held (True when the fingers stopped on an object
            instead of closing fully, at this moment: robo.pose(arm).held checks again) and
            width_m (the measured opening: about the object's width when held, near 0 when
            nothing is between the fingers).
        """
        self._arm(arm)
        self._closed[arm] = True
        outcome = self.station.command_gripper(arm, 0.0, cancel)
        width = float(outcome.width_m)
        held = width > self.config.min_held_width_m
        reason = '' if held else (f'nothing held: width {width * 1000:.1f} mm <= '
                                  f'{self.config.min_held_width_m * 1000:.1f} mm')
        if not held and outcome.reason and not outcome.stalled:
            reason = f'{reason}; {outcome.reason}'
        result = GripperResult(held=held, reason=reason, arm=arm, action='close',
                               width_m=width, commanded_width_m=0.0)
        return result

    @primitive(acting=True, action='VlaRollout')
    def vla(self, instruction: str, arm: str, steps: int = 50, *,
            cancel: CancelToken | None = None,
            feedback: Callable[[int], None] | None = None) -> VlaResult:
        """
        Let a vision-language-action policy drive one arm for a number of control steps.

        The policy sees only the head camera, this arm's wrist camera, this arm's joint
        angles and gripper opening, and the instruction. Each step executes one action
        (joint targets and a gripper opening) at the policy's control rate (15 Hz by
        default); every motion passes the safety gate before the arm moves.

        :param instruction: what the policy should do, in words, e.g. 'pick up the red block'.
        :param arm: 'left' or 'right'.
        :param steps: actions to execute, 1 to 1000 (50 steps take about 3.3 s at 15 Hz).
        :returns: VlaResult with completed (True when all steps ran; the task may still be
            unfinished: check with robo.locate or robo.show), steps_run, stop_reason and
            reason. stop_reason is 'steps' (all ran), 'cancelled', 'policy_error' (no VLA
            configured, the policy server is down or too slow, or it sent a malformed
            action chunk) or 'unsafe' (the safety gate refused a motion before it ran, or
            the arm was stopped short of it). The arm stays where the rollout stopped.
        """
        return run_configured_rollout(self.station, instruction, arm, steps,
                                      config=self.config.vla, safety=self.config.safety,
                                      cancel=cancel, feedback=feedback, capture=self._capture)


PRIMITIVES: dict[str, PrimitiveInfo] = declared_primitives(PrimitiveLibrary)
"""The primitive registry: each ``@primitive`` method of ``PrimitiveLibrary``."""
ACTING: tuple[str, ...] = tuple(sorted(n for n, p in PRIMITIVES.items() if p.acting))
"""Primitives that act on the robot (the success guard runs before each)."""

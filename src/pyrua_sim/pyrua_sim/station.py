"""
``MujocoStation``: the Station interface on the MuJoCo twin of the dual-arm ARX-X5 station.

It gives a program what a real station gives and nothing more: joint state, blocking joint
trajectories, the gripper, camera frames rendered on request and the fixed calibration.
Object poses and task state are reachable only through ``privileged_state()``, which is for
the evaluator and test set-up, never for an agent (DESIGN.md rule 4).

Motion runs on simulated time: a trajectory or gripper command steps the physics itself at
the control rate until it ends, so the twin runs as fast as the CPU allows. Two threads may
move the two arms at once: each control step advances the shared simulation and applies
every active trajectory, so each motion keeps its own timing. One lock guards physics and
rendering, so another thread may capture frames while an arm moves.

Why one module of about 400 lines: every method shares that lock and the control loop's
state (the active trajectories), so the class stays whole; rendering, the layout and the
task checks live in their own modules.
"""

from __future__ import annotations

import threading

import mujoco
import numpy as np
from pyrua_primitives.cancel import CancelToken
from pyrua_primitives.naming import unknown_name
from pyrua_primitives.station import (
    ArmBase,
    ARMS,
    CameraFrame,
    CameraModel,
    check_arm,
    check_camera,
    GripperResult,
    JointLimits,
    JointState,
    TrajectoryResult,
)

from .arms import ArmIndex, find, MAX_VELOCITY_RAD_S
from .cameras import CameraRig
from .config import StationConfig
from .errors import ConfigError
from .model import TABLE_TOP_GEOM
from .privileged import PrivilegedState
from .trajectory import JointTrajectory, refusal

CAMERA_MJCF_NAMES: dict[str, str] = {
    'head': 'head',
    'left_wrist': 'left/wrist_camera',
    'right_wrist': 'right/wrist_camera',
}
"""API camera name -> MJCF camera name (the one table; ``test_station`` checks it)."""

HOME_KEYFRAME = 'home'
GRIPPER_SQUEEZE_M = 0.005
"""Closing to width 0 commands each finger this far past contact so the servo squeezes."""


class MujocoStation:
    """
    The Station interface on a compiled MuJoCo station model (bare or with task objects).

    Call ``close()`` when done (or use ``with``): it releases the OpenGL renderers.

    :param model: a compiled model built on ``pyrua_sim.model.station_spec()``.
    :param config: control rate, render size, depth and gripper settings.
    :raises ModelError: when the model lacks the station's joints, cameras or table.
    :raises ConfigError: when the control rate does not divide the physics rate.
    """

    def __init__(self, model: mujoco.MjModel, config: StationConfig | None = None) -> None:
        self._config = config or StationConfig()
        self._lock = threading.RLock()
        self._active: dict[str, JointTrajectory] = {}
        self._load(model)
        self.reset()

    # -- lifecycle -----------------------------------------------------------------------

    def _load(self, model: mujoco.MjModel) -> None:
        # check everything before touching the station, so a bad model leaves it as it was
        arms = {arm: ArmIndex(model, arm) for arm in ARMS}
        cameras = {
            camera: find('camera', model.camera, mjcf_name).id
            for camera, mjcf_name in CAMERA_MJCF_NAMES.items()
        }
        table = find('geom', model.geom, TABLE_TOP_GEOM)
        find('keyframe', model.key, HOME_KEYFRAME)
        physics_hz = 1.0 / model.opt.timestep
        substeps = physics_hz / self._config.control_rate_hz
        if substeps < 1 or abs(substeps - round(substeps)) > 1e-6:
            raise ConfigError(
                f'StationConfig.control_rate_hz={self._config.control_rate_hz} vs physics '
                f'{physics_hz:.0f} Hz; use a rate that divides it (e.g. 125 or 250)'
            )
        buffer = (model.vis.global_.offwidth, model.vis.global_.offheight)
        size = (self._config.render_width, self._config.render_height)
        if size[0] > buffer[0] or size[1] > buffer[1]:
            raise ConfigError(
                f'render size {size[0]}x{size[1]} vs the model offscreen buffer '
                f'{buffer[0]}x{buffer[1]}; lower StationConfig.render_width/height'
            )
        data = mujoco.MjData(model)
        mujoco.mj_kinematics(model, data)
        self._model, self._data, self._arms, self._cameras = model, data, arms, cameras
        self._table_height_m = float(data.geom_xpos[table.id][2] + table.size[2])
        self._substeps = int(round(substeps))
        self._rig = CameraRig(model, *size)

    def load_model(self, model: mujoco.MjModel, keyframe: str = HOME_KEYFRAME) -> None:
        """
        Replace the scene (e.g. a new task layout) and reset it, keeping this station object.

        :param model: a compiled model built on ``pyrua_sim.model.station_spec()``.
        :param keyframe: the keyframe to start from.
        :raises ModelError: when the model lacks the station's names.
        """
        with self._lock:
            self._close_renderers()
            self._active.clear()
            self._load(model)
            self.reset(keyframe)

    def reset(self, keyframe: str = HOME_KEYFRAME) -> None:
        """
        Put every joint (and every object) at ``keyframe`` and the clock at 0.

        :param keyframe: a keyframe of the model, ``'home'`` by default.
        :raises ValueError: for an unknown keyframe, listing the valid ones.
        """
        with self._lock:
            names = [self._model.key(i).name for i in range(self._model.nkey)]
            if keyframe not in names:
                raise ValueError(unknown_name('keyframe', keyframe, names))
            self._active.clear()
            mujoco.mj_resetDataKeyframe(self._model, self._data, names.index(keyframe))
            mujoco.mj_forward(self._model, self._data)

    def close(self) -> None:
        """Release the renderers (OpenGL contexts). The station still steps afterwards."""
        with self._lock:
            self._close_renderers()

    def _close_renderers(self) -> None:
        rig = getattr(self, '_rig', None)
        if rig is not None:
            rig.close()

    def __enter__(self) -> MujocoStation:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f'MujocoStation(t={self._data.time:.3f} s, control {self._config.control_rate_hz:g} '
            f'Hz, {self._config.render_width}x{self._config.render_height})'
        )

    @property
    def config(self) -> StationConfig:
        """Return the station's configuration."""
        return self._config

    def privileged_state(self) -> PrivilegedState:
        """
        Return the EVALUATOR-ONLY view of the simulation (object poses, raw MjModel/MjData).

        Not part of the Station interface: agents and primitives must never call it. The
        evaluator, the success guard and test set-up use it to read and place objects.
        """
        return PrivilegedState(self._model, self._data, self._lock)

    # -- state ---------------------------------------------------------------------------

    def joint_state(self, arm: str) -> JointState:
        """Return the measured joint angles (rad), speeds (rad/s) and gripper width (m)."""
        idx = self._arms[check_arm(arm)]
        with self._lock:
            return JointState(
                arm=arm,
                positions_rad=self._data.qpos[idx.qpos].copy(),
                velocities_rad_s=self._data.qvel[idx.dof].copy(),
                gripper_width_m=self._gripper_width(idx),
                stamp_s=float(self._data.time),
            )

    def joint_limits(self, arm: str) -> JointLimits:
        """Return the soft joint limits (rad), speed limits (rad/s) and gripper stroke (m)."""
        idx = self._arms[check_arm(arm)]
        return JointLimits(
            lower_rad=idx.lower.copy(),
            upper_rad=idx.upper.copy(),
            max_velocity_rad_s=MAX_VELOCITY_RAD_S.copy(),
            gripper_max_width_m=2.0 * idx.finger_max_m,
        )

    def arm_base(self, arm: str) -> ArmBase:
        """Return the fixed mounting of ``arm`` as a 4x4 world-from-base transform (m)."""
        idx = self._arms[check_arm(arm)]
        with self._lock:
            pose = np.eye(4)
            pose[:3, :3] = self._data.xmat[idx.base_body].reshape(3, 3)
            pose[:3, 3] = self._data.xpos[idx.base_body]
        return ArmBase(arm=arm, world_from_base=pose)

    def home_positions_rad(self, arm: str) -> np.ndarray:
        """Return the six joint angles of ``arm`` in the ``home`` keyframe (radians)."""
        idx = self._arms[check_arm(arm)]
        return self._model.key(HOME_KEYFRAME).qpos[idx.qpos].copy()

    def table_height_m(self) -> float:
        """Return the z of the table top in the world frame, metres."""
        return self._table_height_m

    def time_s(self) -> float:
        """Return the simulated time in seconds since the last reset."""
        return float(self._data.time)

    def _gripper_width(self, idx: ArmIndex) -> float:
        # the pads' inner faces meet at joint7 = joint8 = 0 (arx_x5.xml): width = their sum;
        # a squeezing servo presses the soft joint limit a fraction of a mm below 0
        return max(0.0, float(self._data.qpos[idx.finger_qpos].sum()))

    # -- motion --------------------------------------------------------------------------

    def _step(self) -> None:
        """Advance one control period: apply every active trajectory, then step physics."""
        now = self._data.time
        for arm, trajectory in self._active.items():
            self._data.ctrl[self._arms[arm].ctrl] = trajectory.at(now)
        for _ in range(self._substeps):
            mujoco.mj_step(self._model, self._data)

    def follow_joint_trajectory(
        self,
        arm: str,
        positions_rad: np.ndarray,
        times_s: np.ndarray,
        cancel: CancelToken | None = None,
    ) -> TrajectoryResult:
        """
        Follow joint waypoints and block until done (simulated time).

        The path starts at the measured joints and passes through each waypoint at its time
        (monotone cubic interpolation per joint, zero speed at both ends, never beyond the
        waypoints). Then the joints get up to ``settle_timeout_s`` to come within
        ``position_tolerance_rad`` of the last waypoint.

        :param arm: ``'left'`` or ``'right'``.
        :param positions_rad: N x 6 joint waypoints in radians.
        :param times_s: N strictly increasing arrival times in seconds from now (> 0).
        :param cancel: stops the motion and holds the current pose when cancelled.
        :returns: completed, or refused with the reason (a waypoint outside the soft joint
            limits or faster than the speed limits; nothing moves), or stopped (cancelled,
            blocked short of the target).
        :raises ValueError: for an unknown arm, wrong shapes, non-finite values or times
            that do not increase.
        :raises RuntimeError: when another thread is already moving this arm.
        """
        idx = self._arms[check_arm(arm)]
        waypoints, times = JointTrajectory.check_inputs(positions_rad, times_s)
        with self._lock:
            if arm in self._active:
                raise RuntimeError(
                    f'arm {arm!r} is already following a trajectory; wait for it or cancel it'
                )
            start_q = self._data.qpos[idx.qpos].copy()
            reason = refusal(start_q, waypoints, times, idx.lower, idx.upper, MAX_VELOCITY_RAD_S)
            if reason:
                return TrajectoryResult(False, reason, start_q, 0.0)
            start_t = float(self._data.time)
            self._active[arm] = JointTrajectory(start_t, start_q, waypoints, times)
        try:
            end_t = start_t + times[-1]
            return self._run_trajectory(arm, idx, waypoints[-1], start_t, end_t, cancel)
        finally:
            with self._lock:
                self._active.pop(arm, None)

    def _run_trajectory(
        self,
        arm: str,
        idx: ArmIndex,
        goal: np.ndarray,
        start_t: float,
        end_t: float,
        cancel: CancelToken | None,
    ) -> TrajectoryResult:
        tolerance = self._config.position_tolerance_rad
        deadline = end_t + self._config.settle_timeout_s
        while True:
            with self._lock:
                q = self._data.qpos[idx.qpos].copy()
                now = float(self._data.time)
                if cancel is not None and cancel.cancelled:
                    self._active.pop(arm, None)
                    self._data.ctrl[idx.ctrl] = q
                    return TrajectoryResult(False, f'cancelled: {cancel.reason}', q, now - start_t)
                if now >= end_t - 1e-9:
                    error = np.abs(q - goal)
                    if error.max() <= tolerance:
                        self._data.ctrl[idx.ctrl] = goal  # hold exactly the last waypoint
                        return TrajectoryResult(True, '', q, now - start_t)
                    if now >= deadline - 1e-9:
                        worst = int(np.argmax(error))
                        self._active.pop(arm, None)
                        self._data.ctrl[idx.ctrl] = q
                        return TrajectoryResult(
                            False,
                            f'joint{worst + 1} stopped {error[worst]:.3f} rad from its target vs '
                            f'tolerance {tolerance} rad after {self._config.settle_timeout_s} s '
                            'of settling; the arm may be blocked, move it away from the contact',
                            q,
                            now - start_t,
                        )
                self._step()

    def command_gripper(
        self, arm: str, width_m: float, cancel: CancelToken | None = None
    ) -> GripperResult:
        """
        Drive the gripper to ``width_m`` (0 closes and squeezes) and report the measured width.

        :param arm: ``'left'`` or ``'right'``.
        :param width_m: distance between the finger pads, 0 .. 0.088 m.
        :param cancel: stops the fingers where they are when cancelled.
        :returns: reached; or stalled (closing stopped on an object, the width is the
            object's); or refused for a width outside the stroke (nothing moves); or
            stopped (cancelled, timed out).
        :raises ValueError: for an unknown arm or a non-finite width.
        """
        idx = self._arms[check_arm(arm)]
        width = float(width_m)
        if not np.isfinite(width):
            raise ValueError(f'gripper width {width_m!r} vs a finite number of metres; give one')
        cfg = self._config
        max_width = 2.0 * idx.finger_max_m
        with self._lock:
            start_t = float(self._data.time)
            measured = self._gripper_width(idx)
            if width < 0.0 or width > max_width + 1e-9:
                return GripperResult(
                    False,
                    f'width {width:.3f} m vs stroke 0..{max_width:.3f} m; '
                    'command a width inside it',
                    measured,
                    False,
                    0.0,
                )
            closing = width < measured
            target = width / 2.0 if width > cfg.gripper_tolerance_m else -GRIPPER_SQUEEZE_M
            self._data.ctrl[idx.gripper_ctrl] = target
        still_since: float | None = None
        while True:
            with self._lock:
                now = float(self._data.time)
                measured = self._gripper_width(idx)
                speed = float(np.abs(self._data.qvel[idx.finger_dof]).sum())
                elapsed = now - start_t
                if cancel is not None and cancel.cancelled:
                    self._data.ctrl[idx.gripper_ctrl] = measured / 2.0
                    return GripperResult(
                        False, f'cancelled: {cancel.reason}', measured, False, elapsed
                    )
                still = speed < cfg.gripper_stall_speed_m_s
                if still and abs(measured - width) <= cfg.gripper_tolerance_m:
                    return GripperResult(True, '', measured, False, elapsed)
                if still:
                    still_since = now if still_since is None else still_since
                    stalled = now - still_since >= cfg.gripper_stall_time_s
                    if stalled and closing and measured > width:
                        return GripperResult(
                            False,
                            f'stopped at {measured * 1000:.1f} mm vs commanded '
                            f'{width * 1000:.1f} mm; something is between the fingers',
                            measured,
                            True,
                            elapsed,
                        )
                else:
                    still_since = None
                if elapsed >= cfg.gripper_timeout_s:
                    return GripperResult(
                        False,
                        f'width {measured * 1000:.1f} mm vs commanded {width * 1000:.1f} mm after '
                        f'{cfg.gripper_timeout_s} s; the fingers are blocked',
                        measured,
                        False,
                        elapsed,
                    )
                self._step()

    # -- cameras -------------------------------------------------------------------------

    def camera_model(self, camera: str) -> CameraModel:
        """Return the camera's intrinsics (pixels) and world pose (OpenCV optical frame)."""
        camera_id = self._cameras[check_camera(camera)]
        with self._lock:
            self._rig.update_poses(self._data)
            return self._rig.camera_model(self._data, camera, camera_id)

    def capture(self, camera: str, depth: bool = False) -> CameraFrame:
        """
        Render one frame of ``camera`` now (RGB; depth in metres only where enabled).

        :param camera: ``'head'``, ``'left_wrist'`` or ``'right_wrist'``.
        :param depth: also render depth along the optical axis (needs ``depth_enabled``).
        :returns: the frame with the camera model it was taken with.
        :raises ValueError: for an unknown camera, or depth when it is not enabled.
        :raises RendererUnavailable: when no offscreen OpenGL backend works here.
        """
        camera_id = self._cameras[check_camera(camera)]
        if depth and not self._config.depth_enabled:
            raise ValueError(
                f'depth requested from {camera!r} vs depth_enabled=False; '
                'use StationConfig(depth_enabled=True) where depth is allowed'
            )
        with self._lock:
            return self._rig.capture(self._data, camera, camera_id, depth)

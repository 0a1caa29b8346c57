"""
``LiberoStation``: the Station interface over a LIBERO environment's single Franka Panda.

The arm is called ``'arm'``: LIBERO has one arm, and naming it ``'left'`` or ``'right'``
would tell the model it had a second one. Cameras are the benchmark's ``agentview`` and
``robot0_eye_in_hand``, rendered only when a primitive asks (the environment itself is built
without camera observations), with pinhole models from the MJCF.

Motion goes through the benchmark's own controller (robosuite OSC_POSE at 20 Hz): the
station is a ``CartesianArm``, so ``move_to`` hands it a TCP pose and it drives the
controller along a straight line, one waypoint per control step, then settles. Joint
trajectories (``follow_joint_trajectory``) are converted to TCP poses by MuJoCo forward
kinematics and tracked the same way. The gripper width is read from the two finger joints.

The TCP follows the library's convention: between the finger pads, x = approach, y = the
closing line; the finger tips are ``FINGERTIP_BEYOND_TCP_M`` beyond it along x.
"""

from __future__ import annotations

import math
import threading

import mujoco
import numpy as np
from pyrua_primitives.cancel import CancelToken
from pyrua_primitives.kinematics.orientation import interpolate_rotation, rotation_log
from pyrua_primitives.station import (
    ArmBase,
    CameraFrame,
    CameraModel,
    check_arm,
    check_camera,
    GripperResult,
    JointLimits,
    JointState,
    TrajectoryResult,
)

from .calibration import site_from_tcp, table_height
from ...cameras import CameraRig

ARM = 'arm'
ARMS: tuple[str, ...] = (ARM,)
CAMERAS: tuple[str, ...] = ('agentview', 'robot0_eye_in_hand')
GRIPPER_MAX_WIDTH_M = 0.08
"""Panda hand: each finger travels 0-40 mm."""
FINGERTIP_BEYOND_TCP_M = 0.02
"""Where this station puts its TCP: 2 cm behind the Panda's finger tips (the pads' centre)."""
PANDA_VELOCITY_LIMITS_RAD_S = np.array([2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61])
TCP_SPEED_M_S = 0.25
"""Speed of the straight-line waypoints fed to the controller."""
POSITION_TOLERANCE_M = 0.002
ROTATION_TOLERANCE_RAD = math.radians(3.0)
SETTLE_STEPS = 80
STALL_STEPS = 20
"""Control steps without progress after which a move or a grip counts as blocked."""
_OSC_POS_SCALE_M = 0.05
_OSC_ROT_SCALE_RAD = 0.5
_GRIP_OPEN, _GRIP_CLOSE = -1.0, 1.0
_ROTATION_WEIGHT_M = 0.1
_INTEGRAL_GAIN = 0.15
_INTEGRAL_LIMIT_M = 0.04


class LiberoStation:
    """
    The Station (and ``CartesianArm``) over one LIBERO ``ControlEnv``.

    :param env: a LIBERO ``ControlEnv`` built with the OSC_POSE controller, no camera
        observations and ``ignore_done=True``; the station owns it from now on.
    :param render_size: (width, height) of captured images, pixels.
    :param depth: whether ``capture(..., depth=True)`` is allowed.
    """

    arms = ARMS
    cameras = CAMERAS
    fingertip_beyond_tcp_m = FINGERTIP_BEYOND_TCP_M

    def __init__(self, env, render_size: tuple[int, int] = (256, 256),
                 depth: bool = True) -> None:
        self._env = env
        self._lock = threading.RLock()
        self._depth = depth
        self._size = render_size
        self._rig: CameraRig | None = None
        self._bind()

    # -- lifecycle -----------------------------------------------------------------------

    def _bind(self) -> None:
        """Look up the robot's joints, sites and cameras in the (possibly new) model."""
        sim = self._env.sim
        self._model: mujoco.MjModel = sim.model._model
        self._data: mujoco.MjData = sim.data._data
        robot = self._env.robots[0]
        self._robot = robot
        self._arm_qpos = np.array(robot._ref_joint_pos_indexes)
        self._arm_qvel = np.array(robot._ref_joint_vel_indexes)
        self._finger_qpos = np.array(robot._ref_gripper_joint_pos_indexes)
        self._site = int(robot.eef_site_id)
        self._camera_ids = {name: mujoco.mj_name2id(self._model, mujoco.mjtObj.mjOBJ_CAMERA,
                                                    name) for name in CAMERAS}
        missing = [name for name, cid in self._camera_ids.items() if cid < 0]
        if missing:
            raise ValueError(f'LIBERO model has no camera {missing}; cameras: {CAMERAS}')
        self._base_body = mujoco.mj_name2id(self._model, mujoco.mjtObj.mjOBJ_BODY,
                                            'robot0_base')
        self._scratch = mujoco.MjData(self._model)
        if self._rig is not None:
            self._rig.close()
        self._rig = CameraRig(self._model, *self._size)
        self._grip = 0.0
        self._table_z: float | None = None
        self._site_from_tcp = self._calibrate_tcp()

    def _calibrate_tcp(self) -> np.ndarray:
        """Return the TCP in the eef site's frame, measured at the current joints."""
        data = self._scratch
        data.qpos[:] = self._data.qpos
        mujoco.mj_kinematics(self._model, data)
        return site_from_tcp(self._model, data, self._site, FINGERTIP_BEYOND_TCP_M)

    def reset_to(self, state: np.ndarray, settle_steps: int = 10) -> None:
        """
        Load a flattened MuJoCo state (a benchmark init state) and let it settle.

        Like the benchmark's evaluation: the environment is reset (same model), the state
        is set, and ``settle_steps`` control steps run with the gripper opening.
        """
        with self._lock:
            self._env.reset()
            if self._env.sim.model._model is not self._model:
                self._bind()
            self._env.set_init_state(state)
            self._grip = 0.0
            self._table_z = None
            hold = self._site_pose()
            for _ in range(settle_steps):
                self._step(hold, _GRIP_OPEN)
            self._grip = _GRIP_OPEN

    def close(self) -> None:
        """Release the renderer and the environment."""
        with self._lock:
            if self._rig is not None:
                self._rig.close()
                self._rig = None
            env, self._env = self._env, None
            if env is not None:
                env.close()

    # -- state -----------------------------------------------------------------------------

    def joint_state(self, arm: str) -> JointState:
        """Return the Panda's seven joint angles and the finger opening."""
        check_arm(arm, ARMS)
        with self._lock:
            return JointState(arm, self._data.qpos[self._arm_qpos].copy(),
                              self._data.qvel[self._arm_qvel].copy(), self._width(),
                              float(self._data.time))

    def _width(self) -> float:
        left, right = self._data.qpos[self._finger_qpos]
        return float(max(0.0, abs(left) + abs(right)))

    def joint_limits(self, arm: str) -> JointLimits:
        """Return the Panda's joint ranges (MJCF), speed limits and gripper stroke."""
        check_arm(arm, ARMS)
        joints = self._model.jnt_qposadr
        ids = [int(np.flatnonzero(joints == adr)[0]) for adr in self._arm_qpos]
        ranges = self._model.jnt_range[ids]
        return JointLimits(ranges[:, 0].copy(), ranges[:, 1].copy(),
                           PANDA_VELOCITY_LIMITS_RAD_S.copy(), GRIPPER_MAX_WIDTH_M)

    def home_positions_rad(self, arm: str) -> np.ndarray:
        """Return the benchmark robot's initial joint angles."""
        check_arm(arm, ARMS)
        return np.array(self._robot.init_qpos, dtype=float)

    def arm_base(self, arm: str) -> ArmBase:
        """Return the Panda's base mounting pose in the world frame."""
        check_arm(arm, ARMS)
        pose = np.eye(4)
        pose[:3, :3] = self._data.xmat[self._base_body].reshape(3, 3)
        pose[:3, 3] = self._data.xpos[self._base_body]
        return ArmBase(arm, pose)

    def table_height_m(self) -> float:
        """Return the z of the top of the table the task's objects stand on."""
        if self._table_z is None:  # fixed in the scene: read it once per init state
            self._table_z = table_height(self._model, self._data)
        return self._table_z

    def time_s(self) -> float:
        """Return the simulated time in seconds."""
        return float(self._data.time)

    # -- CartesianArm --------------------------------------------------------------------

    def _site_pose(self, data=None) -> np.ndarray:
        data = self._data if data is None else data
        pose = np.eye(4)
        pose[:3, :3] = data.site_xmat[self._site].reshape(3, 3)
        pose[:3, 3] = data.site_xpos[self._site]
        return pose

    def tcp_pose(self, arm: str) -> np.ndarray:
        """Return the measured 4x4 TCP pose (world frame)."""
        check_arm(arm, ARMS)
        with self._lock:
            return self._site_pose() @ self._site_from_tcp

    def home_tcp_pose(self, arm: str) -> np.ndarray:
        """Return the TCP pose of the benchmark's initial joint angles."""
        return self._tcp_of_joints(self.home_positions_rad(arm))

    def _tcp_of_joints(self, q: np.ndarray) -> np.ndarray:
        data = self._scratch
        data.qpos[:] = self._data.qpos
        data.qpos[self._arm_qpos] = q
        mujoco.mj_kinematics(self._model, data)
        return self._site_pose(data) @ self._site_from_tcp

    def move_tcp(self, arm: str, target: np.ndarray, *, line: bool = True,
                 cancel: CancelToken | None = None) -> TrajectoryResult:
        """
        Drive the TCP to ``target`` through the benchmark's OSC controller and settle.

        :param target: 4x4 TCP pose, world frame.
        :param line: straight-line waypoints at ``TCP_SPEED_M_S``; False sends the goal at once
            (the controller then moves about straight anyway, with its own speed).
        :returns: completed=True once within 2 mm and 3 deg; else the reason (cancelled,
            blocked: no progress for ``STALL_STEPS`` steps, or not settled).
        """
        check_arm(arm, ARMS)
        goal = np.asarray(target, dtype=float) @ np.linalg.inv(self._site_from_tcp)
        with self._lock:
            start_t = self.time_s()
            start = self._site_pose()
            waypoints = [goal]
            if line:
                dt = self._control_dt()
                distance = float(np.linalg.norm(goal[:3, 3] - start[:3, 3]))
                turn = float(np.linalg.norm(rotation_log(start[:3, :3].T @ goal[:3, :3])))
                count = max(1, math.ceil(distance / (TCP_SPEED_M_S * dt)),
                            math.ceil(turn / (1.5 * dt)))
                waypoints = []
                for k in range(1, count + 1):
                    s = k / count
                    pose = np.eye(4)
                    pose[:3, :3] = interpolate_rotation(start[:3, :3], goal[:3, :3], s)
                    pose[:3, 3] = (1 - s) * start[:3, 3] + s * goal[:3, 3]
                    waypoints.append(pose)
            for pose in waypoints[:-1]:
                if cancel is not None and cancel.cancelled:
                    return self._outcome(False, f'cancelled: {cancel.reason}', start_t)
                self._step(pose, self._grip)
            return self._settle(goal, cancel, start_t)

    def _settle(self, goal: np.ndarray, cancel: CancelToken | None,
                start_t: float) -> TrajectoryResult:
        # Under a load or near its limits the OSC settles short of the goal: an integral term
        # moves the commanded position until the measured TCP arrives (or it saturates).
        best, since, offset = math.inf, 0, np.zeros(3)
        for _ in range(SETTLE_STEPS):
            if cancel is not None and cancel.cancelled:
                return self._outcome(False, f'cancelled: {cancel.reason}', start_t)
            pos_err, rot_err = self._errors(goal)
            if pos_err <= POSITION_TOLERANCE_M and rot_err <= ROTATION_TOLERANCE_RAD:
                return self._outcome(True, '', start_t)
            offset = np.clip(offset + _INTEGRAL_GAIN * (goal[:3, 3] - self._site_pose()[:3, 3]),
                             -_INTEGRAL_LIMIT_M, _INTEGRAL_LIMIT_M)
            command = goal.copy()
            command[:3, 3] += offset
            self._step(command, self._grip)
            progress = pos_err + _ROTATION_WEIGHT_M * rot_err
            if progress < best - 2e-4:
                best, since = progress, 0
            else:
                since += 1
            if since >= STALL_STEPS:
                return self._outcome(False, (
                    f'blocked: no progress for {STALL_STEPS} control steps, '
                    f'{pos_err * 1000:.1f} mm / {math.degrees(rot_err):.1f} deg from the goal'),
                    start_t)
        pos_err, rot_err = self._errors(goal)
        if pos_err <= POSITION_TOLERANCE_M and rot_err <= ROTATION_TOLERANCE_RAD:
            return self._outcome(True, '', start_t)
        return self._outcome(False, (
            f'not settled: {pos_err * 1000:.1f} mm / {math.degrees(rot_err):.1f} deg from the '
            f'goal after {SETTLE_STEPS} control steps'), start_t)

    def _errors(self, goal: np.ndarray) -> tuple[float, float]:
        now = self._site_pose()
        pos_err = float(np.linalg.norm(goal[:3, 3] - now[:3, 3]))
        rot_err = float(np.linalg.norm(rotation_log(now[:3, :3].T @ goal[:3, :3])))
        return pos_err, rot_err

    def _outcome(self, completed: bool, reason: str, start_t: float) -> TrajectoryResult:
        return TrajectoryResult(completed, reason, self._data.qpos[self._arm_qpos].copy(),
                                self.time_s() - start_t)

    def _control_dt(self) -> float:
        return 1.0 / float(self._env.env.control_freq)

    def _step(self, site_goal: np.ndarray, grip: float) -> None:
        """Run one control step of the benchmark's OSC toward the eef-site pose ``site_goal``."""
        now = self._site_pose()
        action = np.zeros(7)
        action[:3] = np.clip((site_goal[:3, 3] - now[:3, 3]) / _OSC_POS_SCALE_M, -1.0, 1.0)
        rotvec = rotation_log(site_goal[:3, :3] @ now[:3, :3].T)
        action[3:6] = np.clip(rotvec / _OSC_ROT_SCALE_RAD, -1.0, 1.0)
        action[6] = grip
        self._env.step(action)

    # -- joint trajectories ----------------------------------------------------------------

    def follow_joint_trajectory(self, arm: str, positions_rad: np.ndarray, times_s: np.ndarray,
                                cancel: CancelToken | None = None) -> TrajectoryResult:
        """
        Follow joint waypoints by tracking their TCP poses (MuJoCo forward kinematics).

        :param positions_rad: N x 7 Panda joint waypoints, radians (inside the joint ranges).
        :param times_s: N strictly increasing arrival times, seconds from now.
        """
        check_arm(arm, ARMS)
        positions = np.atleast_2d(np.asarray(positions_rad, dtype=float))
        times = np.asarray(times_s, dtype=float).reshape(-1)
        if positions.shape[1] != len(self._arm_qpos) or len(times) != len(positions):
            raise ValueError(f'trajectory {positions.shape} with {len(times)} times vs (N, '
                             f'{len(self._arm_qpos)}) Panda joints and N times')
        limits = self.joint_limits(arm)
        outside = (positions < limits.lower_rad - 1e-9) | (positions > limits.upper_rad + 1e-9)
        if np.any(outside):
            with self._lock:
                return self._outcome(False, 'a waypoint is outside the Panda joint ranges',
                                     self.time_s())
        with self._lock:
            start_t = self.time_s()
            dt = self._control_dt()
            for q, arrive in zip(positions, times, strict=True):
                goal = self._tcp_of_joints(q) @ np.linalg.inv(self._site_from_tcp)
                while self.time_s() - start_t < arrive - 1e-9:
                    if cancel is not None and cancel.cancelled:
                        return self._outcome(False, f'cancelled: {cancel.reason}', start_t)
                    self._step(goal, self._grip)
                if dt <= 0:
                    break
            return self._outcome(True, '', start_t)

    # -- gripper ---------------------------------------------------------------------------

    def command_gripper(self, arm: str, width_m: float,
                        cancel: CancelToken | None = None) -> GripperResult:
        """
        Open to ``width_m`` or close (``width_m`` = 0: close and keep squeezing).

        The benchmark's gripper action is open/close; the station steps it until the finger
        joints reach the width, or stop moving (on an object: ``stalled=True``).
        """
        check_arm(arm, ARMS)
        with self._lock:
            start_t = self.time_s()
            hold = self._site_pose()
            closing = width_m < self._width()
            command = _GRIP_CLOSE if closing else _GRIP_OPEN
            last, still = self._width(), 0
            for _ in range(60):
                if cancel is not None and cancel.cancelled:
                    return GripperResult(False, f'cancelled: {cancel.reason}', self._width(),
                                         False, self.time_s() - start_t)
                self._step(hold, command)
                width = self._width()
                if not closing and width >= width_m - 1e-3:
                    break
                still = still + 1 if abs(width - last) < 2e-4 else 0
                last = width
                if still >= 4:
                    break
            self._grip = command
            width = self._width()
            reached = abs(width - width_m) <= 2e-3 or (not closing and width >= width_m)
            stalled = closing and not reached
            reason = '' if reached else ('stopped on an object' if stalled
                                         else f'stopped at {width * 1000:.1f} mm')
            return GripperResult(reached, reason, width, stalled, self.time_s() - start_t)

    # -- cameras -------------------------------------------------------------------------

    def capture(self, camera: str, depth: bool = False) -> CameraFrame:
        """Render ``camera`` now (RGB; depth in metres along the optical axis when asked)."""
        check_camera(camera, CAMERAS)
        if depth and not self._depth:
            raise ValueError('depth is not enabled on this LIBERO station; build it with '
                             'depth=True')
        with self._lock:
            return self._rig.capture(self._data, camera, self._camera_ids[camera], depth)

    def camera_model(self, camera: str) -> CameraModel:
        """Return the camera's intrinsics (MJCF fovy) and current pose (OpenCV optical frame)."""
        check_camera(camera, CAMERAS)
        with self._lock:
            mujoco.mj_camlight(self._model, self._data)
            return self._rig.camera_model(self._data, camera, self._camera_ids[camera])

    def __repr__(self) -> str:
        return f'LiberoStation(Panda {ARM!r}, cameras {list(CAMERAS)})'

"""
``RosStation``: the Station interface over standard ROS 2 driver interfaces.

Joint state from ``/joint_states``; joint motion through ``control_msgs``
FollowJointTrajectory and the grippers through ParallelGripperCommand (or GripperCommand, by
``station.gripper_interface``; ros2_control controllers, or the twin's sim node); camera
frames from ``image_raw`` + ``camera_info`` subscribed with sensor-data QoS only while a frame
is requested (converted with cv_bridge: ``image_bridge``); camera and arm-base poses from
TF. Every other translation is done by the ROS-free ``pyrua_primitives.conversions``.

The owning node must be spun by a MultiThreadedExecutor in another thread than the caller
(the primitives node's goals run on executor threads; the subscriptions, TF and controller
responses this station waits for run on the others, in a ReentrantCallbackGroup).
"""

from __future__ import annotations

import functools
import threading
import time
from typing import Any

from control_msgs.action import FollowJointTrajectory, GripperCommand, ParallelGripperCommand
import numpy as np
from pyrua_primitives.cancel import CancelToken
from pyrua_primitives.conversions.camera_info import camera_info_to_intrinsics
from pyrua_primitives.conversions.control import (
    gripper_goal_fields,
    gripper_outcome,
    gripper_result_width,
    STATUS_SUCCEEDED,
    trajectory_outcome,
    trajectory_to_message,
)
from pyrua_primitives.conversions.joint_states import joint_state_from_message, station_time_s
from pyrua_primitives.conversions.stamps import stamp_to_s
from pyrua_primitives.conversions.transforms import transform_to_matrix
from pyrua_primitives.errors import PrimitiveError
from pyrua_primitives.kinematics import arx_x5
from pyrua_primitives.station import (
    ArmBase,
    ARMS,
    CameraFrame,
    CameraIntrinsics,
    CameraModel,
    CAMERAS,
    check_arm,
    check_camera,
    GripperResult,
    JointLimits,
    JointState,
    TrajectoryResult,
)
from rclpy.action import ActionClient
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data, QoSProfile, ReliabilityPolicy
from rclpy.time import Time
from sensor_msgs.msg import CameraInfo, Image
from sensor_msgs.msg import JointState as JointStateMsg
from tf2_msgs.msg import TFMessage
from tf2_ros import Buffer, TransformException, TransformListener

from .action_goal import ActionGoal
from .config import RosStationConfig
from .frame_queue import FrameQueue
from .image_bridge import image_to_depth, image_to_rgb
from .messages import make

LAUNCH_HINT = 'is the driver or `ros2 launch pyrua_bringup sim.launch.py` running?'
QUEUE_QOS = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
"""Frame queue subscriptions: reliable, deep (a played bag's frames are all kept)."""
TF_TOPIC = '/tf'


class RosStation:
    """
    The Station over ``/joint_states``, camera topics, controller actions and TF.

    :param node: the node that owns the subscriptions and clients.
    :param config: topics, action names, frames and timeouts.
    :param callback_group: group for every callback (default: a new reentrant group).
    :param tf_frames_service: offer TF's ``tf2_frames`` debugging service from ``node``; one
        node per namespace may (the primitives node), else the names collide.
    """

    def __init__(self, node: Node, config: RosStationConfig | None = None,
                 callback_group: ReentrantCallbackGroup | None = None, *,
                 tf_frames_service: bool = False) -> None:
        self._node = node
        self.config = config or RosStationConfig()
        self._group = callback_group or ReentrantCallbackGroup()
        self._joints = threading.Condition()
        self._joint_msg: Any = None
        self._joint_count = 0
        # A played bag's joint states, every one in arrival order (``played_joint_state``).
        self._joint_log: list[Any] | None = [] if self.config.frame_queue else None
        self._intrinsics: dict[str, CameraIntrinsics] = {}
        self._joint_sub = node.create_subscription(
            JointStateMsg, self.config.joint_states_topic, self._on_joint_states,
            QUEUE_QOS if self.config.frame_queue else qos_profile_sensor_data,
            callback_group=self._group)
        self._tf = Buffer(node=node) if tf_frames_service else Buffer()
        self._tf_listener = TransformListener(self._tf, node)
        self._trajectory = {arm: self._client(FollowJointTrajectory,
                                              self.config.trajectory_action.format(arm=arm))
                            for arm in ARMS}
        gripper_type = (GripperCommand if self.config.gripper_interface == 'gripper_command'
                        else ParallelGripperCommand)
        self._gripper_type = gripper_type
        self._gripper = {arm: self._client(gripper_type,
                                           self.config.gripper_action.format(arm=arm))
                         for arm in ARMS}
        self._frames = FrameQueue(CAMERAS) if self.config.frame_queue else None
        self._frame_subs = [] if self._frames is None else [
            node.create_subscription(msg_type, topic.format(camera=camera),
                                     functools.partial(callback, camera), QUEUE_QOS,
                                     callback_group=self._group)
            for camera in CAMERAS
            for msg_type, topic, callback in (
                (Image, self.config.image_topic, self._frames.on_image),
                (CameraInfo, self.config.camera_info_topic, self._frames.on_info))]
        if self._frames is not None:
            # The camera poses recorded with the frames, one per frame, in order.
            self._frame_subs.append(node.create_subscription(
                TFMessage, TF_TOPIC, self._on_camera_poses, QUEUE_QOS,
                callback_group=self._group))

    def _on_camera_poses(self, msg: Any) -> None:
        optical = {self.config.camera_frame.format(camera=c): c for c in CAMERAS}
        for transform in msg.transforms:
            camera = optical.get(transform.child_frame_id)
            if camera is not None and transform.header.frame_id == self.config.world_frame:
                self._frames.on_pose(camera, transform)

    def _client(self, action_type: type, name: str) -> tuple[ActionClient, str]:
        return ActionClient(self._node, action_type, name, callback_group=self._group), name

    def _on_joint_states(self, msg: Any) -> None:
        with self._joints:
            self._joint_msg = msg
            self._joint_count += 1
            if self._joint_log is not None:
                self._joint_log.append(msg)
            self._joints.notify_all()

    def _prefix(self, arm: str) -> str:
        return self.config.joint_prefix.format(arm=arm)

    # --- state ------------------------------------------------------------------------

    def _latest_joints(self, after: int = 0) -> Any:
        timeout = self.config.wait_timeout_s
        with self._joints:
            if not self._joints.wait_for(lambda: self._joint_count > after, timeout):
                raise PrimitiveError(f'no {self.config.joint_states_topic} message after '
                                     f'{timeout} s; {LAUNCH_HINT}')
            return self._joint_msg

    def joint_state(self, arm: str) -> JointState:
        """Return the latest measured joint state of ``arm``."""
        return joint_state_from_message(self._latest_joints(), check_arm(arm), self._prefix(arm))

    def _settled_joint_state(self, arm: str, not_before_s: float | None = None) -> JointState:
        """
        Return the first joint state stamped after a motion's result came back.

        The first message to arrive after the result may have been stamped before it (in
        flight while the action ended), so this takes the second; for a completed
        trajectory it also waits, within ``wait_timeout_s``, for a stamp at or past
        ``not_before_s`` (start + the trajectory's own duration: the station cannot finish
        sooner). Durations are then station seconds, as in process.
        """
        with self._joints:
            count = self._joint_count
        msg = self._latest_joints(count + 1)
        deadline = time.monotonic() + self.config.wait_timeout_s
        while (not_before_s is not None and station_time_s(msg) < not_before_s - 1e-6
               and time.monotonic() < deadline):
            with self._joints:
                count = self._joint_count
            msg = self._latest_joints(count)
        return joint_state_from_message(msg, arm, self._prefix(arm))

    def played_joint_state(self, index: int, arm: str) -> JointState:
        """
        Return ``arm`` in the ``index``-th joint state message received (0-based).

        A replay reads the played bag's samples by their recorded position
        (``station.frame_queue``); it waits up to ``wait_timeout_s`` for the message.

        :raises PrimitiveError: when the station keeps no joint log (``frame_queue`` False)
            or the message did not arrive in time.
        """
        if self._joint_log is None:
            raise PrimitiveError('played_joint_state needs station.frame_queue: true (a bag '
                                 'replay); a live station reads joint_state')
        timeout = self.config.wait_timeout_s
        with self._joints:
            if not self._joints.wait_for(lambda: len(self._joint_log) > index, timeout):
                raise PrimitiveError(
                    f'joint state {index + 1} of the bag vs {len(self._joint_log)} received on '
                    f'{self.config.joint_states_topic} after {timeout} s; is the bag playing?')
            msg = self._joint_log[index]
        return joint_state_from_message(msg, check_arm(arm), self._prefix(arm))

    def joint_limits(self, arm: str) -> JointLimits:
        """Return the ARX-X5 joint limits (the station's fixed calibration)."""
        check_arm(arm)
        return JointLimits(lower_rad=arx_x5.LOWER_LIMITS_RAD.copy(),
                           upper_rad=arx_x5.UPPER_LIMITS_RAD.copy(),
                           max_velocity_rad_s=arx_x5.VELOCITY_LIMITS_RAD_S.copy(),
                           gripper_max_width_m=arx_x5.GRIPPER_MAX_WIDTH_M)

    def home_positions_rad(self, arm: str) -> np.ndarray:
        """Return the six joint angles of ``arm``'s calibrated ready pose (``station.home_*``)."""
        return self.config.home_positions_rad(arm)

    def table_height_m(self) -> float:
        """Return the calibrated table top height, metres."""
        return self.config.table_height_m

    def time_s(self) -> float:
        """
        Return the station clock: the stamp of the latest joint state, seconds.

        The driver's (or the twin's simulated) time, whatever this node's ``use_sim_time``:
        ``robo.wait`` on a faster-than-real-time twin reports the twin's seconds. Stamp 0
        (the twin right after a reset) is a valid time.
        """
        return station_time_s(self._latest_joints())

    # --- motion -----------------------------------------------------------------------

    def _run(self, client: tuple[ActionClient, str], goal: Any, timeout_s: float,
             cancel: CancelToken | None) -> ActionGoal:
        action, name = client
        wait = self.config.wait_timeout_s
        if not action.wait_for_server(timeout_sec=wait):
            raise PrimitiveError(f'action server {name} not available after {wait} s; '
                                 f'{LAUNCH_HINT}')
        sent = ActionGoal(action, goal, name)
        deadline = time.monotonic() + timeout_s
        while not sent.wait(0.02):
            if cancel is not None and cancel.cancelled:
                sent.cancel(cancel.reason)
            if time.monotonic() > deadline and not sent.cancel_reason:
                sent.cancel('timeout')
            if time.monotonic() > deadline + wait:
                raise PrimitiveError(f'{name} did not finish within {timeout_s:.1f} s and did '
                                     f'not answer the cancel within {wait} s; check the driver')
        return sent

    def follow_joint_trajectory(self, arm: str, positions_rad: np.ndarray, times_s: np.ndarray,
                                cancel: CancelToken | None = None) -> TrajectoryResult:
        """
        Follow joint waypoints through the arm's FollowJointTrajectory controller.

        ``duration_s`` is station time (joint state stamps before and after), the same
        seconds the in-process station reports, never this process's wall clock.
        """
        check_arm(arm)
        goal = FollowJointTrajectory.Goal()
        goal.trajectory = trajectory_to_message(arm, positions_rad, times_s, make,
                                                self._prefix(arm))
        started = self.time_s()
        planned = float(np.asarray(times_s)[-1])
        timeout = planned + self.config.trajectory_margin_s
        sent = self._run(self._trajectory[arm], goal, timeout, cancel)
        code, text = ((sent.result.error_code, sent.result.error_string)
                      if sent.result is not None else (-1, sent.error))
        done = sent.status == STATUS_SUCCEEDED and code == 0
        final = self._settled_joint_state(arm, started + planned if done else None)
        return trajectory_outcome(sent.status, code, text, final.positions_rad,
                                  final.stamp_s - started)

    def command_gripper(self, arm: str, width_m: float,
                        cancel: CancelToken | None = None) -> GripperResult:
        """Drive the gripper to ``width_m`` (pad to pad) through its gripper controller."""
        check_arm(arm)
        cfg = self.config
        goal = self._gripper_type.Goal(**gripper_goal_fields(
            cfg.gripper_interface, arm, float(width_m), cfg.gripper_max_effort_n, make,
            self._prefix(arm)))
        started = self.time_s()
        sent = self._run(self._gripper[arm], goal, self.config.trajectory_margin_s, cancel)
        final = self._settled_joint_state(arm)
        duration = final.stamp_s - started  # station seconds, as in process
        if sent.result is None:
            return GripperResult(False, sent.error, final.gripper_width_m, False, duration)
        r = sent.result
        width = gripper_result_width(cfg.gripper_interface, r)
        if width != width:  # NaN: the controller reported no joint state
            width = final.gripper_width_m
        return gripper_outcome(sent.status, width, r.stalled, r.reached_goal, duration)

    # --- cameras and frames -------------------------------------------------------------

    def _next_message(self, msg_type: type, topic: str) -> Any:
        """Subscribe to ``topic``, take the first message, and unsubscribe."""
        box: list[Any] = []
        arrived = threading.Event()

        def on_message(msg: Any) -> None:
            if not box:
                box.append(msg)
                arrived.set()

        sub = self._node.create_subscription(msg_type, topic, on_message,
                                             qos_profile_sensor_data,
                                             callback_group=self._group)
        try:
            wait = self.config.wait_timeout_s
            if not arrived.wait(wait):
                raise PrimitiveError(f'no message on {topic} after {wait} s; {LAUNCH_HINT}')
        finally:
            self._node.destroy_subscription(sub)
        return box[0]

    def _lookup(self, target: str, source: str) -> np.ndarray:
        wait = self.config.wait_timeout_s
        try:
            transform = self._tf.lookup_transform(target, source, Time(),
                                                  timeout=Duration(seconds=wait))
        except TransformException as exc:
            raise PrimitiveError(f'no TF from {target} to {source} after {wait} s ({exc}); '
                                 'is robot_state_publisher or the sim node publishing TF?'
                                 ) from exc
        return transform_to_matrix(transform.transform)

    def _queued(self, kind: str, camera: str) -> Any:
        wait = self.config.wait_timeout_s
        take = {'image': self._frames.next_image, 'pose': self._frames.next_pose,
                'info': self._frames.info}[kind]
        msg = take(camera, wait)
        if msg is None:
            topic = {'image': self.config.image_topic, 'pose': TF_TOPIC,
                     'info': self.config.camera_info_topic}[kind].format(camera=camera)
            raise PrimitiveError(f'no message on {topic} after {wait} s (frame queue: '
                                 f'{self._frames!r}); is the bag playing?')
        return msg

    def skip_frames(self, camera: str, count: int) -> None:
        """
        Drop the next ``count`` queued images of ``camera``.

        A replay drops the frames the recorded run captured inside a primitive that the
        replay answers from the recording (a VLA rollout), so the next capture takes the
        frame the recorded run took next.

        :raises PrimitiveError: without ``frame_queue``, or when they do not arrive in time.
        """
        if self._frames is None:
            raise PrimitiveError('skip_frames needs station.frame_queue: true (a bag replay)')
        for _ in range(count):
            self._queued('image', check_camera(camera))
            self._queued('pose', camera)

    def camera_model(self, camera: str) -> CameraModel:
        """Return the camera's intrinsics (from camera_info) and its current pose (TF)."""
        check_camera(camera)
        if self._frames is not None:
            self._intrinsics[camera] = camera_info_to_intrinsics(self._queued('info', camera))
        if camera not in self._intrinsics:
            info = self._next_message(CameraInfo,
                                      self.config.camera_info_topic.format(camera=camera))
            self._intrinsics[camera] = camera_info_to_intrinsics(info)
        pose = self._lookup(self.config.world_frame,
                            self.config.camera_frame.format(camera=camera))
        return CameraModel(camera, self._intrinsics[camera], pose, self.time_s())

    def capture(self, camera: str, depth: bool = False) -> CameraFrame:
        """Take the next frame of ``camera`` (and its depth image when asked and enabled)."""
        check_camera(camera)
        if depth and not self.config.depth:
            raise ValueError('depth requested but station.depth is False; set it where the '
                             'cameras publish aligned depth, or call without depth')
        if self._frames is not None:  # a played frame, with the pose it was taken from
            info, image, pose = (self._queued(k, camera) for k in ('info', 'image', 'pose'))
            model = CameraModel(camera, camera_info_to_intrinsics(info),
                                transform_to_matrix(pose.transform),
                                stamp_to_s(pose.header.stamp))
        else:
            model = self.camera_model(camera)
            image = self._next_message(Image, self.config.image_topic.format(camera=camera))
        depth_m = (image_to_depth(self._next_message(
            Image, self.config.depth_topic.format(camera=camera))) if depth else None)
        return CameraFrame(camera=camera, rgb=image_to_rgb(image), model=model,
                           stamp_s=stamp_to_s(image.header.stamp), depth_m=depth_m)

    def arm_base(self, arm: str) -> ArmBase:
        """Return the arm's base pose in the world frame (from TF)."""
        check_arm(arm)
        return ArmBase(arm, self._lookup(self.config.world_frame,
                                         self.config.base_frame.format(arm=arm)))

    def destroy(self) -> None:
        """Release the subscriptions, the TF listener and the action clients."""
        for sub in (self._joint_sub, *self._frame_subs):
            self._node.destroy_subscription(sub)
        for action, _ in (*self._trajectory.values(), *self._gripper.values()):
            action.destroy()

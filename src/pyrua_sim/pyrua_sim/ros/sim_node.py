"""
``sim_node``: the MuJoCo twin behind the standard interfaces of a real station.

Publishes ``/joint_states``, ``/clock`` (the twin's simulated time, counted on across
resets so it never goes back: ``TwinHost.time_s``), TF (arm bases static, re-sent after a reset,
cameras dynamic), and per camera ``image_raw`` + ``camera_info`` (sensor-data QoS, rendered
only while someone subscribes); serves per arm the ``control_msgs`` FollowJointTrajectory
and ParallelGripperCommand (or GripperCommand) actions a ros2_control driver serves (cancel
honoured), the evaluator's ``reset_task`` and ``task_status`` services, and the
``gazebo_msgs`` entity services. All
translation is in ``pyrua_primitives.conversions``; the evaluator side is ``TwinHost``.
"""

from __future__ import annotations

import functools
from typing import Any

from control_msgs.action import FollowJointTrajectory, GripperCommand, ParallelGripperCommand
from gazebo_msgs.srv import DeleteEntity, GetEntityState, SetEntityState, SpawnEntity
from pyrua_primitives.cancel import CancelToken
from pyrua_primitives.conversions.camera_info import intrinsics_to_camera_info
from pyrua_primitives.conversions.control import (
    gripper_goal_width,
    gripper_result_fields,
    trajectory_error_code,
    trajectory_from_message,
)
from pyrua_primitives.conversions.fields import to_fields
from pyrua_primitives.conversions.joint_states import joint_states_to_message
from pyrua_primitives.conversions.stamps import make_header, stamp_fields
from pyrua_primitives.conversions.transforms import (
    matrix_to_transform_stamped,
    tuple_to_pose,
)
from pyrua_primitives.ros import names
from pyrua_primitives.ros.image_bridge import depth_to_image, rgb_to_image
from pyrua_primitives.ros.messages import interface_class, make
from pyrua_primitives.ros.params import config_from_node
from pyrua_primitives.ros.rclpy_version import require_supported_rclpy
from pyrua_primitives.station import ARMS, CAMERAS
from pyrua_sim.twin import load_twin
import rclpy
from rclpy.action import ActionServer, CancelResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import CameraInfo, Image, JointState
from tf2_ros import StaticTransformBroadcaster, TransformBroadcaster

from .config import SimNodeConfig
from .twin_host import TwinHost


class SimNode(Node):
    """Run the twin with the interfaces of a ros2_control station plus evaluator services."""

    def __init__(self) -> None:
        super().__init__('sim_node')
        self.config = config_from_node(self, SimNodeConfig)
        cfg = self.config
        self._host = TwinHost(load_twin(cfg.task, cfg.seed, cfg.layout, cfg.station),
                              functools.partial(load_twin, config=cfg.station))
        self._tokens: dict[bytes, CancelToken] = {}
        group = ReentrantCallbackGroup()
        self._joint_pub = self.create_publisher(JointState, names.JOINT_STATES, 10)
        self._clock_pub = self.create_publisher(Clock, names.CLOCK, 10)
        self._tf = TransformBroadcaster(self)
        self._static_tf = StaticTransformBroadcaster(self)
        self._image_pubs = {
            c: (self.create_publisher(Image, names.IMAGE_TOPIC.format(camera=c),
                                      qos_profile_sensor_data),
                self.create_publisher(CameraInfo, names.CAMERA_INFO_TOPIC.format(camera=c),
                                      qos_profile_sensor_data),
                self.create_publisher(Image, names.DEPTH_TOPIC.format(camera=c),
                                      qos_profile_sensor_data))
            for c in CAMERAS}
        self._servers = []
        self._gripper_type = (GripperCommand if cfg.gripper_interface == 'gripper_command'
                              else ParallelGripperCommand)
        for arm in ARMS:
            self._servers.append(ActionServer(
                self, FollowJointTrajectory, names.TRAJECTORY_ACTION.format(arm=arm),
                execute_callback=functools.partial(self.execute_trajectory, arm),
                cancel_callback=self.cancel_callback, callback_group=group))
            self._servers.append(ActionServer(
                self, self._gripper_type, names.GRIPPER_ACTION.format(arm=arm),
                execute_callback=functools.partial(self.execute_gripper, arm),
                cancel_callback=self.cancel_callback, callback_group=group))
        srv = functools.partial(self.create_service, callback_group=group)
        # Not ``_services``: rclpy keeps its parameter services there (test_node_attributes).
        self._evaluator_services = [
            srv(interface_class('pyrua_msgs/srv/ResetTask'), names.RESET_TASK, self.reset_task),
            srv(interface_class('pyrua_msgs/srv/TaskStatus'), names.TASK_STATUS,
                self.task_status),
            srv(GetEntityState, names.GET_ENTITY_STATE, self.get_entity_state),
            srv(SetEntityState, names.SET_ENTITY_STATE, self.set_entity_state),
            srv(SpawnEntity, names.SPAWN_ENTITY, self.spawn_entity),
            srv(DeleteEntity, names.DELETE_ENTITY, self.delete_entity),
        ]
        self._state_timer = self.create_timer(1.0 / cfg.state_rate_hz, self.publish_state,
                                              callback_group=group)
        self._camera_timer = self.create_timer(1.0 / cfg.camera_rate_hz, self.publish_cameras,
                                               callback_group=group)
        self._publish_static_tf()
        self.get_logger().info(f'twin ready: {self._host.twin!r}')

    @property
    def _station(self) -> Any:
        return self._host.twin.station

    # --- publishers ---------------------------------------------------------------------

    def _publish_static_tf(self) -> None:
        stamp = self._host.time_s()  # after a reset: a newer stamp, never an older one
        self._static_tf.sendTransform([
            matrix_to_transform_stamped(self._station.arm_base(arm).world_from_base,
                                        names.WORLD_FRAME, names.BASE_FRAME.format(arm=arm),
                                        stamp, make)
            for arm in ARMS])

    def publish_state(self) -> None:
        """Publish /clock, /joint_states and the camera frames' TF at the sim node's time."""
        station = self._station
        stamp = self._host.time_s()
        clock = Clock()
        clock.clock = make('builtin_interfaces/msg/Time', **stamp_fields(stamp))
        self._clock_pub.publish(clock)
        states = [station.joint_state(arm) for arm in ARMS]
        self._joint_pub.publish(joint_states_to_message(states, stamp, make))
        self._tf.sendTransform([
            matrix_to_transform_stamped(station.camera_model(c).world_from_camera,
                                        names.WORLD_FRAME, names.CAMERA_FRAME.format(camera=c),
                                        stamp, make)
            for c in CAMERAS])

    def publish_cameras(self) -> None:
        """Render and publish each camera that has subscribers (image, info, depth)."""
        depth = self.config.station.depth_enabled
        for camera, (image_pub, info_pub, depth_pub) in self._image_pubs.items():
            wanted = image_pub.get_subscription_count() + info_pub.get_subscription_count()
            wants_depth = depth and depth_pub.get_subscription_count() > 0
            if not wanted and not wants_depth:
                continue
            frame = self._station.capture(camera, depth=wants_depth)
            stamp = self._host.stamp_s(frame.stamp_s)
            optical = names.CAMERA_FRAME.format(camera=camera)
            info_pub.publish(intrinsics_to_camera_info(frame.model.intrinsics, stamp,
                                                       optical, make))
            image_pub.publish(rgb_to_image(frame.rgb, stamp, optical, make))
            if wants_depth:
                depth_pub.publish(depth_to_image(frame.depth_m, stamp, optical, make))

    # --- controller actions -------------------------------------------------------------

    def _token(self, goal_handle: Any) -> CancelToken:
        return self._tokens.setdefault(goal_handle.goal_id.uuid.tobytes(), CancelToken())

    def cancel_callback(self, goal_handle: Any) -> CancelResponse:
        """Accept a cancel; the motion stops at its next control step, holding its pose."""
        self._token(goal_handle).cancel('cancel requested by the action client')
        return CancelResponse.ACCEPT

    def _finish(self, goal_handle: Any, ok: bool) -> None:
        self.publish_state()
        if goal_handle.is_cancel_requested:
            goal_handle.canceled()
        elif ok:
            goal_handle.succeed()
        else:
            goal_handle.abort()

    def execute_trajectory(self, arm: str, goal_handle: Any) -> Any:
        """Follow the goal's trajectory on the twin (simulated time, as fast as the CPU)."""
        result = FollowJointTrajectory.Result()
        token = self._token(goal_handle)
        self._host.begin_motion()
        try:
            positions, times = trajectory_from_message(goal_handle.request.trajectory, arm,
                                                       names.JOINT_PREFIX.format(arm=arm))
            outcome = self._station.follow_joint_trajectory(arm, positions, times, cancel=token)
            result.error_code, result.error_string = trajectory_error_code(outcome)
        except KeyError as exc:
            result.error_code, result.error_string = -2, str(exc.args[0])
        except (ValueError, RuntimeError) as exc:
            result.error_code, result.error_string = -1, str(exc)
        finally:
            self._tokens.pop(goal_handle.goal_id.uuid.tobytes(), None)
            self._host.end_motion()
        self._finish(goal_handle, result.error_code == 0)
        return result

    def execute_gripper(self, arm: str, goal_handle: Any) -> Any:
        """Drive the twin's gripper to the goal's pad-to-pad width (``conversions.control``)."""
        interface = self.config.gripper_interface
        result = self._gripper_type.Result()
        token = self._token(goal_handle)
        self._host.begin_motion()
        try:
            width = gripper_goal_width(interface, goal_handle.request)
            outcome = self._station.command_gripper(arm, width, cancel=token)
        except ValueError as exc:
            self.get_logger().warning(f'gripper goal refused: {exc}')
            outcome = None
        finally:
            self._tokens.pop(goal_handle.goal_id.uuid.tobytes(), None)
            self._host.end_motion()
        if outcome is not None:
            fields = gripper_result_fields(interface, arm, outcome, make,
                                           names.JOINT_PREFIX.format(arm=arm))
            for key, value in fields.items():
                setattr(result, key, value)
        self._finish(goal_handle, outcome is not None and (outcome.reached or outcome.stalled))
        return result

    # --- evaluator and entity services ----------------------------------------------------

    def reset_task(self, request: Any, response: Any) -> Any:
        """Rebuild the twin for the requested layout."""
        response.success, response.message = self._host.reset(request.task, request.seed,
                                                              request.index)
        response.instruction = self._host.twin.instruction
        if response.success:
            self._publish_static_tf()
            self.get_logger().info(f'reset to {self._host.twin!r}')
        return response

    def task_status(self, request: Any, response: Any) -> Any:
        """Report the evaluator's success, reason and staged score."""
        for key, value in to_fields(self._host.status()).items():
            setattr(response, key, value)
        return response

    def get_entity_state(self, request: Any, response: Any) -> Any:
        """Return a layout object's pose (world frame; twist is not measured: zero)."""
        ok, message, pose = self._host.get_state(request.name, request.reference_frame)
        response.success = ok
        response.header = make_header(make, self._host.time_s(), names.WORLD_FRAME)
        response.state.name = request.name
        response.state.reference_frame = names.WORLD_FRAME
        if ok:
            response.state.pose = tuple_to_pose(pose, make)
        else:
            self.get_logger().warning(f'get_entity_state: {message}')
        return response

    def set_entity_state(self, request: Any, response: Any) -> Any:
        """Place a layout object at the requested pose, at rest."""
        state = request.state
        response.success, message = self._host.set_state_from_message(
            state.name, state.pose, state.reference_frame)
        if not response.success:
            self.get_logger().warning(f'set_entity_state: {message}')
        return response

    def spawn_entity(self, request: Any, response: Any) -> Any:
        """Bring back a deleted layout object (new models are refused with the reason)."""
        response.success, response.status_message = self._host.spawn_from_message(
            request.name, request.xml, request.initial_pose, request.reference_frame)
        return response

    def delete_entity(self, request: Any, response: Any) -> Any:
        """Park a layout object out of every view and reach."""
        response.success, response.status_message = self._host.delete(request.name)
        return response

    def destroy(self) -> None:
        """Destroy servers and services, close the twin and destroy the node."""
        for server in self._servers:
            server.destroy()
        self._host.twin.close()
        self.destroy_node()


def main(args: list[str] | None = None) -> None:
    """Run ``sim_node`` until shutdown."""
    require_supported_rclpy()  # before init: refuse rclpy releases with broken actions
    rclpy.init(args=args)
    node = None
    try:
        node = SimNode()
        executor = MultiThreadedExecutor(num_threads=node.config.executor_threads)
        executor.add_node(node)
        executor.spin()
    except KeyboardInterrupt:
        pass
    finally:
        if node is not None:
            node.destroy()
        rclpy.try_shutdown()

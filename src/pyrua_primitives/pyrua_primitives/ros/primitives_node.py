"""
``primitives_node``: one action server per primitive action, under the node's namespace.

Serves ``locate``, ``move_to``, ``gripper`` (open and close) and ``vla_rollout`` (when the
library has ``vla``) with ``pyrua_msgs`` actions, over a ``RosStation``; what the primitives
read (frames, joint states) is published for the agent node's recording
(``observation_topics``). Cancel requests are
accepted and reach the running primitive through its CancelToken; long primitives publish
feedback. Goals run on a MultiThreadedExecutor with one ReentrantCallbackGroup, so a goal's
wait on joint states, TF, camera frames and controller results never blocks the others.
"""

from __future__ import annotations

import functools
from typing import Any

from pyrua_primitives.cancel import CancelToken
from pyrua_primitives.conversions.actions import ACTIONS, result_to_message
from pyrua_primitives.library import PrimitiveLibrary
import rclpy
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node

from .config import PrimitivesNodeConfig
from .goal_execution import execute_goal
from .messages import interface_class, make
from .names import action_name
from .observation_topics import ObservationPublisher
from .params import config_from_node
from .rclpy_version import require_supported_rclpy
from .ros_station import RosStation


class PrimitivesNode(Node):
    """Serve the primitive library as ROS 2 actions."""

    def __init__(self) -> None:
        super().__init__('primitives_node')
        self.config = config_from_node(self, PrimitivesNodeConfig)
        self._group = ReentrantCallbackGroup()
        self._station = RosStation(self, self.config.station, self._group,
                                   tf_frames_service=True)
        # Every frame and joint state the primitives read goes to the agent node's recording.
        self._observations = ObservationPublisher(self)
        self._primitives = PrimitiveLibrary(self._station, self.config.library,
                                            observer=self._observations).primitives()
        self._tokens: dict[bytes, CancelToken] = {}
        served = sorted({spec.name for name, spec in ACTIONS.items()
                         if name in self._primitives})
        self._types = {a: interface_class(f'pyrua_msgs/action/{a}') for a in served}
        self._servers = [
            ActionServer(self, self._types[action], action_name(action),
                         execute_callback=functools.partial(self.execute_callback, action),
                         goal_callback=self.goal_callback,
                         cancel_callback=self.cancel_callback,
                         callback_group=self._group)
            for action in served]
        self.get_logger().info(f'serving {", ".join(action_name(a) for a in served)} in '
                               f'{self.get_namespace()}')

    def _token(self, goal_handle: Any) -> CancelToken:
        return self._tokens.setdefault(goal_handle.goal_id.uuid.tobytes(), CancelToken())

    def goal_callback(self, goal_request: Any) -> GoalResponse:
        """Accept every goal; a bad one is aborted with the reason when it executes."""
        return GoalResponse.ACCEPT

    def cancel_callback(self, goal_handle: Any) -> CancelResponse:
        """Accept the cancel and set the goal's token; the primitive stops at its next check."""
        self._token(goal_handle).cancel('cancel requested by the action client')
        return CancelResponse.ACCEPT

    def execute_callback(self, action: str, goal_handle: Any) -> Any:
        """Run the goal's primitive and return its result (aborted with the reason on misuse)."""
        token = self._token(goal_handle)
        if goal_handle.is_cancel_requested:
            token.cancel('cancel requested before the goal started')

        def publish(fields: dict[str, Any]) -> None:
            goal_handle.publish_feedback(make(f'pyrua_msgs/action/{action}_Feedback', **fields))

        try:
            outcome = execute_goal(action, goal_handle.request, self._primitives, token,
                                   publish)
        finally:
            self._tokens.pop(goal_handle.goal_id.uuid.tobytes(), None)
        if outcome.error:
            self.get_logger().warning(f'{action_name(action)} goal aborted: {outcome.error}')
            result = self._types[action].Result()
            result.reason = outcome.error
            goal_handle.abort()
            return result
        result = result_to_message(outcome.primitive, outcome.value, make)
        if goal_handle.is_cancel_requested:
            goal_handle.canceled()
        else:
            goal_handle.succeed()
        return result

    def destroy(self) -> None:
        """Destroy the action servers, the station's clients and the node."""
        for server in self._servers:
            server.destroy()
        self._station.destroy()
        self.destroy_node()


def main(args: list[str] | None = None) -> None:
    """Run ``primitives_node`` until shutdown."""
    require_supported_rclpy()  # before init: refuse rclpy releases with broken actions
    rclpy.init(args=args)
    node = None
    try:
        node = PrimitivesNode()
        executor = MultiThreadedExecutor(num_threads=node.config.executor_threads)
        executor.add_node(node)
        executor.spin()
    except KeyboardInterrupt:
        pass
    finally:
        if node is not None:
            node.destroy()
        rclpy.try_shutdown()

"""
``agent_node``: one episode of the code agent (or another planner) against ROS primitives.

The node only parses its parameters into an ``EpisodeSpec`` and runs it with
``run_episode_spec``, the assembly ``pyrua run`` uses, so its recording has the same topics.
What is ROS here is the world: ``robo.*`` calls that are actions reach the primitives node
as action goals (``ActionTransport``); the reads run on the node's own ROS station
(``robo.image`` and ``robo.show`` subscribe to a camera only for the frame); the frames and
joint states the primitives node's primitives read arrive on its ``observed/`` topics and
are recorded too, so the bag holds what a ``pyrua run`` bag holds. On the twin
(``evaluator: true``) the sim node's ``reset_task`` and ``task_status`` services are the
evaluator: the layout, the instruction, the success guard, success and score. In a replay
(``replay_bag``, ``replay.launch.py``) the world is the played bag instead
(``replay.played_world``): the primitives that move return their recorded results and the
others run here on the played topics, with no primitives node. The episode
runs in the main thread while a MultiThreadedExecutor spins in another (reference
``ros2.md`` §1.9); the node exits when the episode ends.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from pyrua_primitives.errors import PrimitiveError
from pyrua_primitives.ros.messages import interface_class
from pyrua_primitives.ros.names import RESET_TASK, TASK_STATUS
from pyrua_primitives.ros.observation_topics import ObservationListener
from pyrua_primitives.ros.params import config_from_node
from pyrua_primitives.ros.rclpy_version import require_supported_rclpy
from pyrua_primitives.ros.ros_station import RosStation
from pyrua_primitives.station import CAMERAS
from pyrua_primitives.world import World
import rclpy
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node

from .action_transport import ActionTransport
from .config import AgentNodeConfig, episode_spec
from .episode_run import run_node_episode
from .player_gate import resume_when_subscribed
from ..episode import EpisodeResult, EpisodeSpec, open_station, WorldOpener
from ..recording.observer import EpisodeRecorder
from ..replay.played_world import open_played


class SimServices:
    """
    The sim node's evaluator services as a ``WorldEvaluator``, called from the episode thread.

    :param node: the agent node (spun by an executor in another thread).
    :param callback_group: group of the service clients' callbacks.
    :param timeout_s: how long to wait for a service and for its answer.
    """

    def __init__(self, node: Node, callback_group: ReentrantCallbackGroup,
                 timeout_s: float) -> None:
        self._timeout = timeout_s
        self._reset = node.create_client(interface_class('pyrua_msgs/srv/ResetTask'),
                                         RESET_TASK, callback_group=callback_group)
        self._status = node.create_client(interface_class('pyrua_msgs/srv/TaskStatus'),
                                          TASK_STATUS, callback_group=callback_group)

    def _call(self, client: Any, request: Any) -> Any:
        timeout = self._timeout
        if not client.wait_for_service(timeout_sec=timeout):
            raise PrimitiveError(f'service {client.srv_name} not available after {timeout} s; '
                                 'is the sim node running (evaluator: true needs the twin)?')
        future = client.call_async(request)
        answered = threading.Event()
        future.add_done_callback(lambda _f: answered.set())
        if not answered.wait(timeout):
            raise PrimitiveError(f'service {client.srv_name} did not answer within {timeout} s')
        return future.result()

    def reset(self, task: str, seed: int, layout: int) -> str:
        """Reset the twin to the layout; return its instruction."""
        request = self._reset.srv_type.Request(task=task, seed=seed, index=layout)
        response = self._call(self._reset, request)
        if not response.success:
            raise PrimitiveError(f'reset_task({task!r}, {seed}, {layout}) failed: '
                                 f'{response.message}')
        return response.instruction

    def success(self) -> bool:
        """Return the evaluator's verdict (sim node ``task_status``)."""
        return bool(self._call(self._status, self._status.srv_type.Request()).success)

    def score(self) -> float:
        """Return the evaluator's staged score."""
        return float(self._call(self._status, self._status.srv_type.Request()).score)


class AgentNode(Node):
    """Run one episode through ROS: the shared episode assembly over a ROS world."""

    def __init__(self) -> None:
        super().__init__('agent_node')
        self.config: AgentNodeConfig = config_from_node(self, AgentNodeConfig)
        self._group = ReentrantCallbackGroup()
        self._station = RosStation(self, self.config.station, self._group)
        # The frames and joint states the primitives node's primitives read, for the record.
        self._observations = ObservationListener(self, self._group)
        # Not ``_services``: that is rclpy's own list of this node's services, which its
        # executor iterates on every wait (test_node_attributes checks every name).
        self._evaluator = (SimServices(self, self._group, self.config.server_timeout_s)
                           if self.config.evaluator else None)

    def _transport(self, primitives: Any) -> ActionTransport:
        return ActionTransport(self, primitives, self._group, self.config.server_timeout_s)

    def run(self) -> EpisodeResult:
        """
        Run the episode to its end reason, recording it unless ``record_dir`` is ''.

        A world that does not open (no sim node, no frames) ends the episode with end reason
        ``infra_error`` and its record, never a crash of ``main``. With ``replay_bag``
        the world is the played bag (``open_played``): motion from the recording, sensing
        on this node's station.
        """
        world = (functools.partial(open_played, station=self._station,
                                   bag=self.config.replay_bag) if self.config.replay_bag
                 else functools.partial(open_station, station=self._station,
                                        evaluator=self._evaluator, transport=self._transport))
        opener = functools.partial(self._recording_observations, world)
        if self.config.player_resume_service:
            opener = functools.partial(self._after_player_resumed, opener)
        try:
            result = run_node_episode(episode_spec(self.config), opener)
        finally:
            self._observations.sink = None  # the recorder is closed
        if result.end_reason == 'infra_error':
            self.get_logger().error(f'{result!r}: {result.end_detail}')
        if result.run_dir is not None:
            self.get_logger().info(f'episode recorded in {result.run_dir}')
        return result

    def _recording_observations(self, opener: WorldOpener, spec: EpisodeSpec,
                                observer: EpisodeRecorder | None) -> World:
        """Open the world with the primitives node's observations going to ``observer``."""
        self._observations.sink = observer
        return opener(spec, observer)

    def _after_player_resumed(self, opener: WorldOpener, spec: EpisodeSpec,
                              observer: EpisodeRecorder | None) -> World:
        """Resume the replay's paused bag once its subscribers exist, then open the world."""
        station = self.config.station
        resume_when_subscribed(self, self.config.player_resume_service,
                               [station.image_topic.format(camera=c) for c in CAMERAS],
                               self.config.player_subscribers, self.config.server_timeout_s)
        return opener(spec, observer)

    def destroy(self) -> None:
        """Release the station's clients and destroy the node."""
        self._observations.destroy()
        self._station.destroy()
        self.destroy_node()


def main(args: list[str] | None = None) -> None:
    """Run one episode as ``agent_node``, then exit."""
    require_supported_rclpy()  # before init: refuse rclpy releases with broken actions
    rclpy.init(args=args)
    node = None
    executor = None
    try:
        node = AgentNode()
        executor = MultiThreadedExecutor(num_threads=node.config.executor_threads)
        executor.add_node(node)
        threading.Thread(target=executor.spin, name='agent-executor', daemon=True).start()
        result = node.run()
        node.get_logger().info(f'{result!r}: {result.end_detail}')
    except KeyboardInterrupt:
        pass
    finally:
        if executor is not None:
            executor.shutdown()
        if node is not None:
            node.destroy()
        rclpy.try_shutdown()

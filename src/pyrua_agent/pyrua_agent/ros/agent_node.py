"""
``agent_node``: one episode of the code agent (or another planner) against ROS primitives.

The node holds the cell runtime's namespace through the episode; ``robo.*`` calls reach the
primitives node as action goals (``ActionTransport``), and the reads run on the node's own
ROS station (``robo.image`` and ``robo.show`` subscribe to a camera only for the frame). On
the twin (``evaluator: true``) it resets the sim node to the episode's layout, takes the
instruction from it, and asks ``task_status`` for the success guard, success and score.
The episode runs in the main thread while a MultiThreadedExecutor spins in another
(reference ``ros2.md`` §1.9); the node exits when the episode ends.
"""

from __future__ import annotations

from dataclasses import asdict
import functools
import math
import sys
import threading
from typing import Any

from pyrua_primitives.errors import PrimitiveError
from pyrua_primitives.library import ACTING, PrimitiveLibrary
from pyrua_primitives.ros.messages import interface_class
from pyrua_primitives.ros.names import RESET_TASK, TASK_STATUS
from pyrua_primitives.ros.params import config_from_node
from pyrua_primitives.ros.ros_station import RosStation
import rclpy
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.node import Node

from .action_transport import ActionTransport
from .config import AgentNodeConfig, FILE_PLANNERS
from ..accounting import PriceTable
from ..episode import EpisodeResult, EpisodeWorld, run_episode
from ..planners import make_planner, TaskCard
from ..recording.recorder import default_run_dir, Recorder
from ..runtime import CellRuntime
from ..world import robot_state_text


class AgentNode(Node):
    """Run one episode through ROS: planner, cell runtime, action transport."""

    def __init__(self) -> None:
        super().__init__('agent_node')
        self.config = config_from_node(self, AgentNodeConfig)
        group = ReentrantCallbackGroup()
        self._station = RosStation(self, self.config.station, group)
        self._library = PrimitiveLibrary(self._station, self.config.library)
        self.transport = ActionTransport(self, self._library.primitives(), group,
                                         self.config.server_timeout_s)
        self._reset = self.create_client(interface_class('pyrua_msgs/srv/ResetTask'),
                                         RESET_TASK, callback_group=group)
        self._status = self.create_client(interface_class('pyrua_msgs/srv/TaskStatus'),
                                          TASK_STATUS, callback_group=group)

    def _call(self, client: Any, request: Any) -> Any:
        """Call a service from the episode thread (never from an executor callback)."""
        timeout = self.config.server_timeout_s
        if not client.wait_for_service(timeout_sec=timeout):
            raise PrimitiveError(f'service {client.srv_name} not available after {timeout} s; '
                                 'is the sim node running (evaluator: true needs the twin)?')
        future = client.call_async(request)
        answered = threading.Event()
        future.add_done_callback(lambda _f: answered.set())
        if not answered.wait(timeout):
            raise PrimitiveError(f'service {client.srv_name} did not answer within {timeout} s')
        return future.result()

    def _instruction(self) -> str:
        cfg = self.config
        if not cfg.evaluator:
            return cfg.instruction
        request = self._reset.srv_type.Request(task=cfg.task, seed=cfg.seed, index=cfg.layout)
        response = self._call(self._reset, request)
        if not response.success:
            raise PrimitiveError(f'reset_task({cfg.task!r}, {cfg.seed}, {cfg.layout}) failed: '
                                 f'{response.message}')
        return cfg.instruction or response.instruction

    def success(self) -> bool:
        """Return the evaluator's verdict (sim node ``task_status``)."""
        return bool(self._call(self._status, self._status.srv_type.Request()).success)

    def score(self) -> float:
        """Return the evaluator's staged score."""
        return float(self._call(self._status, self._status.srv_type.Request()).score)

    def world(self) -> EpisodeWorld:
        """Describe the episode: task card, primitives and (on the twin) evaluator hooks."""
        cfg = self.config
        card = TaskCard(task=cfg.task, instruction=self._instruction(),
                        robot_state=robot_state_text(self._library),
                        images=tuple((c, self._library.image(c)) for c in cfg.card_cameras))
        hooks = {'success': self.success, 'score': self.score} if cfg.evaluator else {}
        return EpisodeWorld(task=cfg.task, seed=cfg.seed, layout=cfg.layout, card=card,
                            primitives=self._library.primitives(), acting=ACTING, **hooks)

    def run(self) -> EpisodeResult:
        """Run the episode to its end reason, recording it unless ``record_dir`` is ''."""
        cfg = self.config
        world = self.world()
        options = ({'prices': PriceTable.load(cfg.prices_file)}
                   if cfg.prices_file and cfg.planner not in FILE_PLANNERS else {})
        planner = make_planner(cfg.planner, primitives=world.primitives, endpoint=cfg.endpoint,
                               source=cfg.source or None, **options)
        runtime = functools.partial(CellRuntime, transport=self.transport)
        timeout = cfg.cell_timeout_s
        recorder = None
        if cfg.record_dir:
            recorder = Recorder(default_run_dir(cfg.task, cfg.seed, cfg.layout, cfg.record_dir))
            recorder.episode_started(_plain(asdict(cfg)), world.card, seed=cfg.seed,
                                     layout=cfg.layout, planner=planner.name)
        try:
            result = run_episode(world, planner, budgets=cfg.budgets, cell_timeout_s=timeout,
                                 on_cell=recorder.cell if recorder else None,
                                 runtime_factory=runtime)
            if recorder is not None:
                recorder.episode_ended(result)
        finally:
            if recorder is not None:
                recorder.close()
                self.get_logger().info(f'episode recorded in {recorder.run_dir}')
        return result

    def destroy(self) -> None:
        """Release the station's clients and destroy the node."""
        self._station.destroy()
        self.destroy_node()


def _plain(value: Any) -> Any:
    """Return ``value`` with tuples as lists and NaN as None (JSON for the recording)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def main(args: list[str] | None = None) -> None:
    """Run one episode as ``agent_node``, then exit."""
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
    except ExternalShutdownException:
        sys.exit(1)
    finally:
        if executor is not None:
            executor.shutdown()
        if node is not None:
            node.destroy()
        rclpy.try_shutdown()

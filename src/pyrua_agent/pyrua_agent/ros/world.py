"""
The world ``ros``: a running ROS 2 graph, opened on a node of this process.

Registered in ``pyrua_agent``'s ``pyrua.worlds`` entry points
(``ros = pyrua_agent.ros.world:ROS``). This module imports no ROS, so listing and
resolving worlds (``world_names``, ``world_of``) works on a machine without ROS; opening
the world needs ``rclpy`` and refuses without it, saying what to do.

Opened by name (``EpisodeSpec(world='ros')`` through ``run_episode_spec``), the world is
a node ``pyrua_world`` in the ``pyrua`` namespace, spun by its own executor thread: a
``RosStation`` over the standard driver interfaces, and the primitives node's actions as
the runtime's transport (``ActionTransport``). A graph gives no evaluator here (no success
check, as on a real station); ``agent_node`` opens its graph over its own node instead
(its own opener), with the sim node's services as evaluator when ``evaluator: true``.
"""

from __future__ import annotations

import threading
from typing import Any

from pyrua_primitives.errors import MissingDependency
from pyrua_primitives.world import WorldEntry, WorldParts, WorldSpec

NODE_NAME = 'pyrua_world'
NAMESPACE = '/pyrua'
SERVER_TIMEOUT_S = 5.0
"""How long a goal waits for the primitives node's action server."""


def require_rclpy() -> Any:
    """
    Return the ``rclpy`` module.

    :raises MissingDependency: without ROS 2, saying how to get it and which worlds need none.
    """
    try:
        import rclpy
    except ImportError as exc:
        raise MissingDependency(
            f"world 'ros' needs ROS 2 Jazzy: rclpy is not importable ({exc}); source "
            '/opt/ros/jazzy/setup.bash (or use the docker/ image), start the graph with '
            '`ros2 launch pyrua_bringup sim.launch.py` (or station.launch.py), or pick a world '
            "that needs no ROS, e.g. world='twin'") from exc
    return rclpy


def open_ros_world(spec: WorldSpec) -> WorldParts:
    """
    Open the running graph as the episode's world, on a node of this process.

    :param spec: the episode; ``spec.station`` is a ``RosStationConfig`` or None (defaults).
    :returns: the world; ``close`` stops the executor and destroys the node.
    :raises MissingDependency: without ROS 2 (``require_rclpy``).
    """
    rclpy = require_rclpy()
    from pyrua_primitives.ros.config import RosStationConfig
    from pyrua_primitives.ros.ros_station import RosStation
    from rclpy.callback_groups import ReentrantCallbackGroup
    from rclpy.executors import MultiThreadedExecutor
    from rclpy.node import Node

    from .action_transport import ActionTransport
    from ..episode import open_station

    config = spec.station if spec.station is not None else RosStationConfig()
    if not isinstance(config, RosStationConfig):
        raise TypeError(f"world 'ros' station settings {type(config).__name__} vs a "
                        'RosStationConfig; pass station=RosStationConfig(...) or None')
    initialised = not rclpy.ok()
    if initialised:
        rclpy.init()
    node = Node(NODE_NAME, namespace=NAMESPACE)
    group = ReentrantCallbackGroup()
    executor = MultiThreadedExecutor()
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, name='ros-world-executor', daemon=True)
    spinner.start()
    station = None

    def close() -> None:
        executor.shutdown()
        spinner.join(SERVER_TIMEOUT_S)
        if station is not None:
            station.destroy()
        node.destroy_node()
        if initialised:
            rclpy.try_shutdown()

    try:
        station = RosStation(node, config, group)
        return open_station(spec, station=station, close=close,
                            transport=lambda primitives: ActionTransport(
                                node, primitives, group, SERVER_TIMEOUT_S))
    except BaseException:
        close()
        raise


ROS = WorldEntry(name='ros', opener=open_ros_world,
                 summary='a running ROS 2 graph: the primitives node serves the actions, a '
                         'RosStation reads the driver topics (needs rclpy)')
"""The world registry's entry for a ROS 2 graph."""

"""
Hold a bag replay until its subscribers exist, then resume the player.

``replay.launch.py`` starts ``ros2 bag play --start-paused``: a played bag does not wait
for subscribers, and a frame published before a subscription exists is lost. The agent
node waits until every played camera topic has the subscribers the replay needs
(``player_subscribers``: its own station, with ``station.frame_queue``, in
``replay.launch.py``), then calls the player's ``resume`` service (rosbag2's
``rosbag2_interfaces/srv/Resume``).
"""

from __future__ import annotations

from collections.abc import Sequence
import threading
import time

from pyrua_primitives.errors import PrimitiveError
from pyrua_primitives.ros.messages import interface_class
from rclpy.node import Node


def resume_when_subscribed(node: Node, service: str, topics: Sequence[str], subscribers: int,
                           timeout_s: float) -> None:
    """
    Wait until each of ``topics`` has ``subscribers`` subscribers, then resume the player.

    :raises PrimitiveError: when the subscribers or the service do not come within
        ``timeout_s``, naming which.
    """
    deadline = time.monotonic() + timeout_s
    missing = list(topics)
    while missing:
        missing = [t for t in topics if node.count_subscribers(t) < subscribers]
        if missing and time.monotonic() > deadline:
            counts = {t: node.count_subscribers(t) for t in missing}
            raise PrimitiveError(f'bag topics {counts} have fewer than {subscribers} '
                                 f'subscribers after {timeout_s} s; is primitives_node '
                                 'running with station.frame_queue: true?')
        time.sleep(0.05)
    resume = interface_class('rosbag2_interfaces/srv/Resume')
    client = node.create_client(resume, service)
    try:
        if not client.wait_for_service(timeout_sec=max(0.1, deadline - time.monotonic())):
            raise PrimitiveError(f'service {service} not available after {timeout_s} s; is '
                                 '`ros2 bag play --start-paused` running?')
        answered = threading.Event()
        future = client.call_async(resume.Request())
        future.add_done_callback(lambda _f: answered.set())
        if not answered.wait(timeout_s):
            raise PrimitiveError(f'{service} did not answer within {timeout_s} s')
    finally:
        node.destroy_client(client)

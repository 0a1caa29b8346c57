"""
What the primitives node's primitives read, published for the agent node to record.

The agent node records its episode; the frames and joint states ``locate``, ``move_to`` and
the gripper read run in the primitives node. ``ObservationPublisher`` is that node's library
observer: each captured frame goes out on ``observed/<camera>/image_raw``, ``.../camera_info``
and ``.../pose`` (the camera's ``world`` -> optical frame transform when it was read), each
joint state sample on ``observed/joint_states`` (the driver's format, one arm).
``ObservationListener`` on the agent node turns them back into ``CameraFrame`` and
``JointState`` and hands them to the episode's recorder, so the agent node's bag holds the
same observations as a ``pyrua run`` bag. Reliable, deep queues: nothing is dropped, and
the three parts of a frame are paired by their order on each topic.
"""

from __future__ import annotations

from collections import deque
import functools
import threading
from typing import Any

from geometry_msgs.msg import TransformStamped
from pyrua_primitives.conversions.camera_info import (
    camera_info_to_intrinsics,
    intrinsics_to_camera_info,
)
from pyrua_primitives.conversions.joint_states import (
    joint_state_from_message,
    joint_states_to_message,
)
from pyrua_primitives.conversions.stamps import stamp_to_s
from pyrua_primitives.conversions.transforms import (
    matrix_to_transform_stamped,
    transform_to_matrix,
)
from pyrua_primitives.station import ARMS, CameraFrame, CameraModel, CAMERAS, JointState
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import CameraInfo, Image
from sensor_msgs.msg import JointState as JointStateMsg

from . import names
from .image_bridge import image_to_rgb, rgb_to_image
from .messages import make

OBSERVED_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
JOINT_STATES = 'observed/joint_states'
PARTS = ('image_raw', 'camera_info', 'pose')


def observed_topic(camera: str, part: str) -> str:
    """Return the relative topic of one part of ``camera``'s observed frames."""
    return f'observed/{camera}/{part}'


class ObservationPublisher:
    """
    The primitives node's library observer: publishes every frame and joint state read.

    :param node: the primitives node.
    """

    def __init__(self, node: Node) -> None:
        types = {'image_raw': Image, 'camera_info': CameraInfo, 'pose': TransformStamped}
        self._pubs = {(camera, part): node.create_publisher(
            types[part], observed_topic(camera, part), OBSERVED_QOS)
            for camera in CAMERAS for part in PARTS}
        self._joints = node.create_publisher(JointStateMsg, JOINT_STATES, OBSERVED_QOS)
        self._lock = threading.Lock()

    def frame(self, frame: CameraFrame) -> None:
        """Publish one captured frame: image, camera info and camera pose, in that order."""
        optical = names.CAMERA_FRAME.format(camera=frame.camera)
        messages = {
            'image_raw': rgb_to_image(frame.rgb, frame.stamp_s, optical, make),
            'camera_info': intrinsics_to_camera_info(frame.model.intrinsics, frame.stamp_s,
                                                     optical, make),
            'pose': matrix_to_transform_stamped(frame.model.world_from_camera,
                                                names.WORLD_FRAME, optical,
                                                frame.model.stamp_s, make)}
        with self._lock:  # the three parts of one frame go out together
            for part in PARTS:
                self._pubs[(frame.camera, part)].publish(messages[part])

    def joint_state(self, state: JointState) -> None:
        """Publish one joint state sample of one arm."""
        self._joints.publish(joint_states_to_message([state], state.stamp_s, make))


class ObservationListener:
    """
    The agent node's side: observed frames and joint states to the episode's recorder.

    ``sink`` is the recorder (anything with ``frame`` and ``joint_state``); observations
    that arrive while it is None are dropped.

    :param node: the agent node.
    :param callback_group: group of the subscriptions' callbacks.
    """

    def __init__(self, node: Node, callback_group: Any) -> None:
        self.sink: Any = None
        self._node = node
        self._parts: dict[tuple[str, str], deque[Any]] = {
            (camera, part): deque() for camera in CAMERAS for part in PARTS}
        self._lock = threading.Lock()
        types = {'image_raw': Image, 'camera_info': CameraInfo, 'pose': TransformStamped}
        self._subs = [node.create_subscription(
            types[part], observed_topic(camera, part),
            functools.partial(self._on_part, camera, part), OBSERVED_QOS,
            callback_group=callback_group) for camera in CAMERAS for part in PARTS]
        self._subs.append(node.create_subscription(
            JointStateMsg, JOINT_STATES, self._on_joint_state, OBSERVED_QOS,
            callback_group=callback_group))

    def _on_part(self, camera: str, part: str, msg: Any) -> None:
        with self._lock:
            self._parts[(camera, part)].append(msg)
            if not all(self._parts[(camera, p)] for p in PARTS):
                return
            image, info, pose = (self._parts[(camera, p)].popleft() for p in PARTS)
        model = CameraModel(camera, camera_info_to_intrinsics(info),
                            transform_to_matrix(pose.transform), stamp_to_s(pose.header.stamp))
        self._hand_over('frame', CameraFrame(camera=camera, rgb=image_to_rgb(image),
                                             model=model,
                                             stamp_s=stamp_to_s(image.header.stamp)))

    def _on_joint_state(self, msg: Any) -> None:
        for arm in ARMS:
            if f'{names.JOINT_PREFIX.format(arm=arm)}joint1' in msg.name:
                self._hand_over('joint_state', joint_state_from_message(msg, arm))

    def _hand_over(self, hook: str, value: Any) -> None:
        """Give ``value`` to the sink; a failing recorder is logged, never kills the spin."""
        sink = self.sink
        if sink is None:
            return
        try:
            getattr(sink, hook)(value)
        except Exception as exc:  # an executor callback must not raise
            self._node.get_logger().warning(f'recording an observed {hook} failed: {exc!r}')

    def destroy(self) -> None:
        """Release the subscriptions."""
        for sub in self._subs:
            self._node.destroy_subscription(sub)

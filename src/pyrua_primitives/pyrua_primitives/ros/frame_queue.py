"""
``FrameQueue``: camera messages kept from the start and handed out in arrival order.

A live camera is read on demand (subscribe, take the next frame, unsubscribe). A played
bag holds exactly the frames the recorded episode's primitives captured, in the order they
captured them, and ``ros2 bag play`` does not wait for a subscriber: a frame published
before the replayed primitive subscribes would be lost. With ``station.frame_queue`` the
station subscribes to every camera when it starts, queues each image and the camera pose
recorded with it (the ``world`` -> optical frame transform on ``/tf``), keeps the newest
camera info, and ``capture`` takes the oldest image and pose not taken yet: the replayed
primitives see the recorded frames, in order, each with the pose it was taken from (a
wrist camera moves; tf2's newest transform would be the bag's last). No ROS import: the
station feeds it from its callbacks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
import threading
from typing import Any


class FrameQueue:
    """
    Per camera: FIFOs of image messages and camera poses, and the newest camera info.

    :param cameras: the camera names.
    :param max_images: images kept per camera; the oldest is dropped beyond it.
    """

    def __init__(self, cameras: Iterable[str], max_images: int = 1000) -> None:
        self._cameras = tuple(cameras)
        self._images: dict[str, deque[Any]] = {c: deque(maxlen=max_images)
                                               for c in self._cameras}
        self._poses: dict[str, deque[Any]] = {c: deque(maxlen=max_images)
                                              for c in self._cameras}
        self._info: dict[str, Any] = {}
        self._ready = threading.Condition()

    def on_image(self, camera: str, msg: Any) -> None:
        """Queue one image of ``camera`` (a subscription callback)."""
        with self._ready:
            self._images[camera].append(msg)
            self._ready.notify_all()

    def on_pose(self, camera: str, msg: Any) -> None:
        """Queue one camera pose (a ``TransformStamped`` world -> optical frame)."""
        with self._ready:
            self._poses[camera].append(msg)
            self._ready.notify_all()

    def on_info(self, camera: str, msg: Any) -> None:
        """Keep ``camera``'s newest camera info (a subscription callback)."""
        with self._ready:
            self._info[camera] = msg
            self._ready.notify_all()

    def next_image(self, camera: str, timeout_s: float) -> Any | None:
        """Return the oldest image of ``camera`` not taken yet (None after ``timeout_s``)."""
        with self._ready:
            if not self._ready.wait_for(lambda: bool(self._images[camera]), timeout_s):
                return None
            return self._images[camera].popleft()

    def next_pose(self, camera: str, timeout_s: float) -> Any | None:
        """Return the oldest camera pose of ``camera`` not taken yet (None after ``timeout_s``)."""
        with self._ready:
            if not self._ready.wait_for(lambda: bool(self._poses[camera]), timeout_s):
                return None
            return self._poses[camera].popleft()

    def info(self, camera: str, timeout_s: float) -> Any | None:
        """Return the newest camera info of ``camera`` (None after ``timeout_s``)."""
        with self._ready:
            if not self._ready.wait_for(lambda: camera in self._info, timeout_s):
                return None
            return self._info[camera]

    def __repr__(self) -> str:
        queued = {c: (len(q), len(self._poses[c])) for c, q in self._images.items()}
        return f'<FrameQueue (images, poses) {queued}>'

"""
``sensor_msgs/Image`` <-> numpy through cv_bridge, where ROS runs (the nodes' path).

The same functions, encodings and results as the ROS-free ``conversions.images`` (the
recorder and the bag replay use that one): colour images come back as H x W x 3 uint8
RGB (``imgmsg_to_cv2(msg, 'rgb8')``: cv_bridge's cvtColor, 16-bit scaled to 8 bits), depth
as H x W float32 metres, NaN where invalid (``passthrough``, then 16UC1 millimetres to
metres); colour goes out as ``rgb8`` and depth as ``32FC1`` (``cv2_to_imgmsg``). An
encoding outside ``COLOUR_ENCODINGS`` / ``DEPTH_ENCODINGS`` is refused with the list, as
the numpy path refuses it.
"""

from __future__ import annotations

import array
import copy
import functools
from typing import Any

from cv_bridge import CvBridge, CvBridgeError
import numpy as np

from ..conversions.fields import MessageFactory
from ..conversions.images import COLOUR_CHANNELS, COLOUR_ENCODINGS, DEPTH_ENCODINGS
from ..conversions.stamps import make_header


PIXEL_BYTES = {**{e: c * (2 if e.endswith('16') else 1) for e, c in COLOUR_CHANNELS.items()},
               '32FC1': 4, '16UC1': 2}
"""Bytes per pixel of each supported encoding."""


@functools.cache
def bridge() -> CvBridge:
    """Return the process's CvBridge (it loads OpenCV once)."""
    return CvBridge()


def _refuse(msg: Any, kind: str, supported: tuple[str, ...]) -> ValueError:
    return ValueError(f'image encoding {msg.encoding!r} is not a supported {kind} encoding; '
                      f'supported: {", ".join(supported)}')


def _whole_pixel_rows(msg: Any) -> Any:
    """
    Return ``msg``, or a copy without row padding when ``step`` is no whole number of pixels.

    cv_bridge's Python ``imgmsg_to_cv2`` shapes the buffer as ``step // pixel size``
    columns, which misplaces every row after the first when the padding is not a whole
    pixel (e.g. rgb8 rows aligned to 4 bytes); the numpy path drops any padding.
    """
    pixel = PIXEL_BYTES.get(msg.encoding)
    if pixel is None or msg.step % pixel == 0:
        return msg
    row = msg.width * pixel
    raw = np.frombuffer(memoryview(msg.data).cast('B'), dtype=np.uint8)
    if msg.step < row or raw.size < msg.step * msg.height:
        return msg  # cv_bridge reports the size problem
    rows = raw[:msg.step * msg.height].reshape(msg.height, msg.step)[:, :row]
    packed = copy.copy(msg)
    packed.step = row
    packed.data = array.array('B', rows.tobytes())
    return packed


def _to_array(msg: Any, desired: str) -> np.ndarray:
    msg = _whole_pixel_rows(msg)
    try:
        return bridge().imgmsg_to_cv2(msg, desired_encoding=desired)
    except (CvBridgeError, TypeError, ValueError) as exc:
        raise ValueError(f'image {msg.width}x{msg.height} {msg.encoding!r} (step {msg.step}) '
                         f'did not convert with cv_bridge: {exc}; check the encoding, step '
                         'and data size the driver publishes') from exc


def image_to_rgb(msg: Any) -> np.ndarray:
    """
    Return a colour ``sensor_msgs/Image`` as an H x W x 3 uint8 RGB array (a copy).

    :raises ValueError: for an unsupported encoding, listing the supported ones.
    """
    if msg.encoding not in COLOUR_ENCODINGS:
        raise _refuse(msg, 'colour', COLOUR_ENCODINGS)
    return np.array(_to_array(msg, 'rgb8'), dtype=np.uint8, order='C')


def image_to_depth(msg: Any) -> np.ndarray:
    """
    Return a depth ``sensor_msgs/Image`` as H x W float32 metres, NaN where invalid.

    :raises ValueError: for an encoding other than 32FC1 or 16UC1.
    """
    if msg.encoding not in DEPTH_ENCODINGS:
        raise _refuse(msg, 'depth', DEPTH_ENCODINGS)
    raw = _to_array(msg, 'passthrough')
    if msg.encoding == '32FC1':
        return np.array(raw, dtype=np.float32, order='C')
    depth = raw.astype(np.float32) / 1000.0
    depth[raw == 0] = np.nan
    return depth


def rgb_to_image(rgb: np.ndarray, stamp_s: float, frame_id: str,
                 make: MessageFactory) -> Any:
    """
    Build an rgb8 ``sensor_msgs/msg/Image`` from an H x W x 3 uint8 array.

    :raises ValueError: for another shape or dtype, naming what was given.
    """
    rgb = np.asarray(rgb)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f'rgb image {rgb.shape} {rgb.dtype} vs H x W x 3 uint8; convert it '
                         'with np.asarray(img, dtype=np.uint8)')
    return bridge().cv2_to_imgmsg(np.ascontiguousarray(rgb), encoding='rgb8',
                                  header=make_header(make, stamp_s, frame_id))


def depth_to_image(depth_m: np.ndarray, stamp_s: float, frame_id: str,
                   make: MessageFactory) -> Any:
    """
    Build a 32FC1 ``sensor_msgs/msg/Image`` (metres) from an H x W array.

    :raises ValueError: for an array that is not two-dimensional.
    """
    depth = np.asarray(depth_m)
    if depth.ndim != 2:
        raise ValueError(f'depth image of shape {depth.shape} vs H x W; pass one channel')
    return bridge().cv2_to_imgmsg(np.ascontiguousarray(depth, dtype=np.float32),
                                  encoding='32FC1', header=make_header(make, stamp_s, frame_id))

"""
numpy images <-> ``sensor_msgs/Image``: rgb8 colour and 32FC1 depth (REP 118: metres).

Colour arrays are H x W x 3 uint8 in RGB order; depth arrays are H x W float32 metres along
the optical axis, NaN where invalid. Reading also accepts ``bgr8``, ``rgba8``, ``bgra8``,
``mono8``, their 16-bit forms (``rgb16`` .. ``mono16``, scaled to 8 bits by 255 / 65535 and
rounded, as cv_bridge's ``cvtColor`` to ``rgb8`` does) and ``16UC1`` depth in millimetres
(0 = invalid), which camera drivers commonly publish; anything else is refused with the list
of supported encodings.

This is the ROS-free path (the recorder, the bag replay, tests). Where ROS runs, the nodes
convert with cv_bridge (``pyrua_primitives.ros.image_bridge``), which accepts the same
encodings and gives the same arrays (``test_image_bridge``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .fields import MessageFactory
from .stamps import make_header

COLOUR_CHANNELS = {'rgb8': 3, 'bgr8': 3, 'rgba8': 4, 'bgra8': 4, 'mono8': 1,
                   'rgb16': 3, 'bgr16': 3, 'rgba16': 4, 'bgra16': 4, 'mono16': 1}
"""Colour encoding (sensor_msgs ``image_encodings``) -> channels."""
COLOUR_ENCODINGS = tuple(COLOUR_CHANNELS)
DEPTH_ENCODINGS = ('32FC1', '16UC1')


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
    h, w = rgb.shape[:2]
    data = np.ascontiguousarray(rgb).reshape(-1)
    return make('sensor_msgs/msg/Image', header=make_header(make, stamp_s, frame_id),
                height=h, width=w, encoding='rgb8', is_bigendian=0, step=w * 3, data=data)


def depth_to_image(depth_m: np.ndarray, stamp_s: float, frame_id: str,
                   make: MessageFactory) -> Any:
    """
    Build a 32FC1 ``sensor_msgs/msg/Image`` (metres, little-endian) from an H x W array.

    :raises ValueError: for an array that is not two-dimensional.
    """
    depth = np.asarray(depth_m)
    if depth.ndim != 2:
        raise ValueError(f'depth image of shape {depth.shape} vs H x W; pass one channel')
    h, w = depth.shape
    data = np.ascontiguousarray(depth, dtype='<f4').view(np.uint8).reshape(-1)
    return make('sensor_msgs/msg/Image', header=make_header(make, stamp_s, frame_id),
                height=h, width=w, encoding='32FC1', is_bigendian=0, step=w * 4, data=data)


def _rows(msg: Any, channels: int, itemsize: int) -> np.ndarray:
    """Return the image bytes as H x (W * channels * itemsize), dropping row padding."""
    raw = np.frombuffer(memoryview(msg.data).cast('B'), dtype=np.uint8)
    row = msg.width * channels * itemsize
    if msg.step < row or raw.size < msg.step * msg.height:
        raise ValueError(f'image {msg.width}x{msg.height} {msg.encoding!r}: step {msg.step} '
                         f'and {raw.size} bytes vs at least {row} per row; the message is '
                         'truncated')
    return raw[:msg.step * msg.height].reshape(msg.height, msg.step)[:, :row]


def image_to_rgb(msg: Any) -> np.ndarray:
    """
    Return a colour ``sensor_msgs/Image`` as an H x W x 3 uint8 RGB array (a copy).

    :raises ValueError: for an unsupported encoding, listing the supported ones.
    """
    enc = msg.encoding
    channels = COLOUR_CHANNELS.get(enc)
    if channels is None:
        raise ValueError(f'image encoding {enc!r} is not a supported colour encoding; '
                         f'supported: {", ".join(COLOUR_ENCODINGS)}')
    if enc.endswith('16'):
        order = '>' if msg.is_bigendian else '<'
        wide = _rows(msg, channels, 2).copy().view(f'{order}u2')
        scaled = np.rint(wide.astype(np.float64) * (255.0 / 65535.0))
        pixels = scaled.astype(np.uint8).reshape(msg.height, msg.width, channels)
    else:
        pixels = _rows(msg, channels, 1).reshape(msg.height, msg.width, channels)
    if enc.startswith('mono'):
        return np.repeat(pixels, 3, axis=2)
    if enc.startswith('bgr'):
        pixels = pixels[:, :, 2::-1]
    return np.ascontiguousarray(pixels[:, :, :3])


def image_to_depth(msg: Any) -> np.ndarray:
    """
    Return a depth ``sensor_msgs/Image`` as H x W float32 metres, NaN where invalid.

    :raises ValueError: for an encoding other than 32FC1 or 16UC1.
    """
    order = '>' if msg.is_bigendian else '<'
    if msg.encoding == '32FC1':
        raw = _rows(msg, 1, 4)
        return raw.copy().view(f'{order}f4').astype(np.float32).reshape(msg.height, msg.width)
    if msg.encoding == '16UC1':
        raw = _rows(msg, 1, 2)
        mm = raw.copy().view(f'{order}u2').reshape(msg.height, msg.width)
        depth = mm.astype(np.float32) / 1000.0
        depth[mm == 0] = np.nan
        return depth
    raise ValueError(f'image encoding {msg.encoding!r} is not a supported depth encoding; '
                     f'supported: {", ".join(DEPTH_ENCODINGS)}')

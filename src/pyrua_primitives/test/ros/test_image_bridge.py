"""
Images: the ROS-free numpy path and the nodes' cv_bridge path agree on every encoding.

The numpy path (``conversions.images``) is checked here on rosbags' Jazzy
``sensor_msgs/msg/Image`` (through CDR) against values computed independently: the
channel order of each encoding, 16-bit colour scaled by 255 / 65535 and rounded (what
cv_bridge's ``cvtColor`` does, ``cv_bridge.cpp`` ``convertTo(..., 255. / 65535.)``), row
padding, big-endian data, 16UC1 millimetres. Where ROS 2 is installed (the docker image),
``image_bridge`` (cv_bridge) must give the same arrays for every supported encoding.
"""

import numpy as np
from pyrua_primitives.conversions.images import (
    COLOUR_CHANNELS,
    COLOUR_ENCODINGS,
    DEPTH_ENCODINGS,
    image_to_depth,
    image_to_rgb,
)
import pytest

IMAGE = 'sensor_msgs/msg/Image'
H, W = 3, 5


def _rgb():
    return np.random.default_rng(7).integers(0, 256, (H, W, 3), dtype=np.uint8)


def _wide():
    return np.random.default_rng(8).integers(0, 65536, (H, W, 3), dtype=np.uint16)


def _pixels(encoding):
    """Return (channel data H x W x C, the expected RGB uint8) for ``encoding``."""
    channels = COLOUR_CHANNELS[encoding]
    wide = encoding.endswith('16')
    rgb_full = _wide() if wide else _rgb()
    expected = (np.rint(rgb_full / 257.0).astype(np.uint8) if wide else rgb_full)
    if encoding.startswith('mono'):
        grey = rgb_full[:, :, :1]
        expected = np.repeat(np.rint(grey / 257.0).astype(np.uint8) if wide else grey, 3, 2)
        return grey, expected
    data = rgb_full[:, :, ::-1] if encoding.startswith('bgr') else rgb_full
    if channels == 4:
        alpha = np.full((H, W, 1), 65535 if wide else 255, dtype=data.dtype)
        data = np.concatenate([data, alpha], axis=2)
    return data, expected


def _message(make, encoding, data, *, big_endian=False, pad=0):
    item = data.dtype.itemsize
    order = '>' if big_endian else '<'
    row = np.ascontiguousarray(data.astype(data.dtype.newbyteorder(order))).view(
        np.uint8).reshape(H, -1)
    padded = np.zeros((H, row.shape[1] + pad), np.uint8)
    padded[:, :row.shape[1]] = row
    header = make('std_msgs/msg/Header', stamp=make('builtin_interfaces/msg/Time', sec=1,
                                                    nanosec=0), frame_id='cam')
    assert row.shape[1] == W * data.shape[2] * item if data.ndim == 3 else True
    return make(IMAGE, header=header, height=H, width=W, encoding=encoding,
                is_bigendian=int(big_endian), step=padded.shape[1], data=padded.reshape(-1))


def _cdr(typestore, message):
    return typestore.deserialize_cdr(typestore.serialize_cdr(message, IMAGE), IMAGE)


@pytest.mark.parametrize('encoding', COLOUR_ENCODINGS)
@pytest.mark.parametrize('big_endian', [False, True])
def test_numpy_path_reads_every_colour_encoding_on_the_jazzy_image_type(
        typestore, make, encoding, big_endian):
    data, expected = _pixels(encoding)
    message = _cdr(typestore, _message(make, encoding, data, big_endian=big_endian, pad=4))
    assert np.array_equal(image_to_rgb(message), expected)


def test_numpy_path_reads_depth_encodings(typestore, make):
    metres = np.linspace(0.1, 2.0, H * W, dtype=np.float32).reshape(H, W, 1)
    message = _cdr(typestore, _message(make, '32FC1', metres, big_endian=True))
    assert np.allclose(image_to_depth(message), metres[:, :, 0])
    mm = np.arange(H * W, dtype=np.uint16).reshape(H, W, 1) * 100
    depth = image_to_depth(_cdr(typestore, _message(make, '16UC1', mm)))
    assert np.isnan(depth[0, 0]) and np.allclose(depth.reshape(-1)[1:],
                                                 mm.reshape(-1)[1:] / 1000.0)


def test_an_unsupported_encoding_is_refused_with_the_list(make):
    message = _message(make, 'bayer_rggb8', np.zeros((H, W, 1), np.uint8))
    with pytest.raises(ValueError, match="'bayer_rggb8' is not a supported colour encoding; "
                                         'supported: rgb8, bgr8'):
        image_to_rgb(message)


@pytest.mark.ros
@pytest.mark.parametrize('encoding', COLOUR_ENCODINGS + DEPTH_ENCODINGS)
def test_cv_bridge_path_agrees_with_the_numpy_path(encoding):
    pytest.importorskip('rclpy', reason='needs ROS 2 (cv_bridge, sensor_msgs): docker image')
    pytest.importorskip('cv_bridge', reason='needs ros-jazzy-cv-bridge')
    from pyrua_primitives.conversions import images
    from pyrua_primitives.ros import image_bridge
    from pyrua_primitives.ros.messages import make as rclpy_make

    if encoding in DEPTH_ENCODINGS:
        data = (np.linspace(0.1, 2.0, H * W, dtype=np.float32).reshape(H, W, 1)
                if encoding == '32FC1' else
                np.arange(H * W, dtype=np.uint16).reshape(H, W, 1) * 100)
        message = _message(rclpy_make, encoding, data)
        assert np.array_equal(image_bridge.image_to_depth(message),
                              images.image_to_depth(message), equal_nan=True)
        return
    data, expected = _pixels(encoding)
    message = _message(rclpy_make, encoding, data, pad=4)  # rows aligned to 4 bytes
    assert np.array_equal(image_bridge.image_to_rgb(message), images.image_to_rgb(message))
    assert np.array_equal(images.image_to_rgb(message), expected)
    out = image_bridge.rgb_to_image(expected, 2.5, 'cam', rclpy_make)
    assert (out.encoding, out.step, out.header.frame_id) == ('rgb8', W * 3, 'cam')
    assert np.array_equal(images.image_to_rgb(out), expected)

"""numpy <-> sensor_msgs/Image and CameraInfo <-> CameraIntrinsics, through CDR."""

import numpy as np
from pyrua_primitives import CameraIntrinsics
from pyrua_primitives.conversions.camera_info import (
    camera_info_to_intrinsics,
    intrinsics_to_camera_info,
)
from pyrua_primitives.conversions.images import (
    depth_to_image,
    image_to_depth,
    image_to_rgb,
    rgb_to_image,
)
from pyrua_primitives.conversions.stamps import stamp_fields, stamp_to_s
import pytest

IMAGE = 'sensor_msgs/msg/Image'


def _cdr(typestore, message, type_name):
    return typestore.deserialize_cdr(typestore.serialize_cdr(message, type_name), type_name)


def test_rgb_round_trips_through_cdr(typestore, make):
    rgb = np.random.default_rng(0).integers(0, 256, (48, 64, 3), dtype=np.uint8)
    message = _cdr(typestore, rgb_to_image(rgb, 12.5, 'head_optical_frame', make), IMAGE)
    assert (message.encoding, message.step, message.header.frame_id) == (
        'rgb8', 192, 'head_optical_frame')
    assert stamp_to_s(message.header.stamp) == 12.5
    assert np.array_equal(image_to_rgb(message), rgb)


def test_depth_round_trips_with_nan(typestore, make):
    depth = np.linspace(0.2, 1.5, 12, dtype=np.float32).reshape(3, 4)
    depth[1, 2] = np.nan
    message = _cdr(typestore, depth_to_image(depth, 1.0, 'cam', make), IMAGE)
    assert message.encoding == '32FC1' and message.step == 16
    assert np.array_equal(image_to_depth(message), depth, equal_nan=True)


def test_bgr_with_row_padding_reads_as_rgb(make):
    rgb = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    padded = np.zeros((2, 12), np.uint8)
    padded[:, :9] = rgb[:, :, ::-1].reshape(2, 9)
    message = make(IMAGE, header=make('std_msgs/msg/Header', stamp=make(
        'builtin_interfaces/msg/Time', sec=0, nanosec=0), frame_id=''), height=2, width=3,
        encoding='bgr8', is_bigendian=0, step=12, data=padded.reshape(-1))
    assert np.array_equal(image_to_rgb(message), rgb)


def test_millimetre_depth_reads_as_metres_with_zero_invalid(make):
    mm = np.array([[0, 1000], [250, 1500]], dtype='<u2')
    message = make(IMAGE, header=make('std_msgs/msg/Header', stamp=make(
        'builtin_interfaces/msg/Time', sec=0, nanosec=0), frame_id=''), height=2, width=2,
        encoding='16UC1', is_bigendian=0, step=4, data=mm.view(np.uint8).reshape(-1))
    depth = image_to_depth(message)
    assert np.isnan(depth[0, 0]) and np.allclose(depth[1], [0.25, 1.5])


def test_wrong_inputs_are_refused(make):
    with pytest.raises(ValueError, match=r'vs H x W x 3 uint8'):
        rgb_to_image(np.zeros((4, 4), np.uint8), 0.0, '', make)
    message = rgb_to_image(np.zeros((2, 2, 3), np.uint8), 0.0, '', make)
    message.encoding = 'yuv422'
    with pytest.raises(ValueError, match="'yuv422' is not a supported colour encoding"):
        image_to_rgb(message)
    message.encoding = 'rgb8'
    message.data = message.data[:5]
    with pytest.raises(ValueError, match='truncated'):
        image_to_rgb(message)


def test_camera_info_round_trips_through_cdr(typestore, make):
    intrinsics = CameraIntrinsics(width=640, height=480, fx=385.2, fy=385.2, cx=320.0, cy=240.0)
    message = _cdr(typestore, intrinsics_to_camera_info(intrinsics, 3.0, 'head_optical_frame',
                                                        make), 'sensor_msgs/msg/CameraInfo')
    assert message.distortion_model == 'plumb_bob' and message.p[0] == 385.2
    assert camera_info_to_intrinsics(message) == intrinsics


def test_uncalibrated_or_distorted_camera_info_is_refused(make):
    intrinsics = CameraIntrinsics(width=64, height=48, fx=50.0, fy=50.0, cx=32.0, cy=24.0)
    message = intrinsics_to_camera_info(intrinsics, 0.0, 'c', make)
    message.d = np.array([0.1, 0, 0, 0, 0])
    with pytest.raises(ValueError, match='image_rect'):
        camera_info_to_intrinsics(message)
    message.d = np.zeros(5)
    message.k = np.zeros(9)
    with pytest.raises(ValueError, match='not calibrated'):
        camera_info_to_intrinsics(message)


def test_stamps_split_into_sec_and_nanosec():
    assert stamp_fields(1.5) == {'sec': 1, 'nanosec': 500_000_000}
    assert stamp_fields(2.9999999999) == {'sec': 3, 'nanosec': 0}
    with pytest.raises(ValueError, match='vs minimum 0 s'):
        stamp_fields(-1.0)

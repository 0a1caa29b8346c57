"""``sensor_msgs/CameraInfo`` <-> ``CameraIntrinsics`` (ROS 2 lower-case k, d, r, p)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .fields import MessageFactory
from .stamps import make_header
from ..station import CameraIntrinsics


def camera_info_to_intrinsics(msg: Any) -> CameraIntrinsics:
    """
    Return the pinhole intrinsics of a ``sensor_msgs/CameraInfo``.

    Uses ``k`` (the raw image's camera matrix). Distortion is not modelled: a non-zero
    ``d`` is refused, as is binning, since the primitives assume an undistorted pinhole.

    :raises ValueError: for a zero focal length, distortion or binning, saying what to do.
    """
    k = np.asarray(msg.k, dtype=float).reshape(3, 3)
    if k[0, 0] <= 0 or k[1, 1] <= 0:
        raise ValueError(f'camera_info k has fx={k[0, 0]}, fy={k[1, 1]} vs > 0; the camera is '
                         'not calibrated, so calibrate it or publish its intrinsics')
    if np.any(np.asarray(msg.d, dtype=float) != 0.0):
        raise ValueError(f'camera_info distortion d={list(msg.d)} vs all zero; subscribe to '
                         'the rectified image (image_rect) and its camera_info')
    if msg.binning_x > 1 or msg.binning_y > 1:
        raise ValueError(f'camera_info binning {msg.binning_x}x{msg.binning_y} vs 1x1; '
                         'switch binning off in the camera driver')
    return CameraIntrinsics(width=int(msg.width), height=int(msg.height), fx=float(k[0, 0]),
                            fy=float(k[1, 1]), cx=float(k[0, 2]), cy=float(k[1, 2]))


def intrinsics_to_camera_info(intrinsics: CameraIntrinsics, stamp_s: float, frame_id: str,
                              make: MessageFactory) -> Any:
    """Build an undistorted (plumb_bob, d = 0) ``sensor_msgs/msg/CameraInfo``."""
    i = intrinsics
    k = np.array([i.fx, 0.0, i.cx, 0.0, i.fy, i.cy, 0.0, 0.0, 1.0])
    p = np.array([i.fx, 0.0, i.cx, 0.0, 0.0, i.fy, i.cy, 0.0, 0.0, 0.0, 1.0, 0.0])
    roi = make('sensor_msgs/msg/RegionOfInterest', x_offset=0, y_offset=0, height=0, width=0,
               do_rectify=False)
    return make('sensor_msgs/msg/CameraInfo', header=make_header(make, stamp_s, frame_id),
                height=i.height, width=i.width, distortion_model='plumb_bob',
                d=np.zeros(5), k=k, r=np.eye(3).reshape(-1), p=p, binning_x=0, binning_y=0,
                roi=roi)

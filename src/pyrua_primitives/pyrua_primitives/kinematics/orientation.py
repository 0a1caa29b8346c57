"""
Gripper orientations: top-down grasps by heading, rotation log/exp and interpolation.

The TCP frame has x = approach axis (out of the fingers) and y = the line along which the
fingers close. A top-down grasp points x straight down (world -z). Its ``heading_rad`` is the
yaw of the closing line in the world XY plane, from world +x counter-clockwise; headings
h and h + pi close the same way, so headings are compared modulo pi.
"""

from __future__ import annotations

import math

import numpy as np


def check_heading(heading_rad: object) -> float:
    """
    Return ``heading_rad`` as a float, or raise for misuse.

    :raises ValueError: for a NaN / infinite value or a non-number.
    """
    try:
        value = float(heading_rad)
    except (TypeError, ValueError):
        raise ValueError(
            f'heading_rad={heading_rad!r} is not a number vs radians; pass a float or None'
        ) from None
    if not math.isfinite(value):
        raise ValueError(f'heading_rad={value} is not finite vs radians; pass a finite float')
    return value


def top_down_rotation(heading_rad: float) -> np.ndarray:
    """
    Return the world rotation of a top-down TCP whose fingers close along ``heading_rad``.

    :param heading_rad: yaw of the closing line from world +x, counter-clockwise.
    :returns: 3x3 rotation with columns (approach = -z, closing line, their cross product).
    """
    c, s = math.cos(heading_rad), math.sin(heading_rad)
    return np.array([[0.0, c, s], [0.0, s, -c], [-1.0, 0.0, 0.0]])


def closing_heading_rad(rotation: np.ndarray) -> float:
    """Return the yaw of the closing line (TCP y) in the world XY plane, in [-pi/2, pi/2)."""
    yaw = math.atan2(rotation[1, 1], rotation[0, 1])
    return wrap_half_turn(yaw)


def wrap_half_turn(angle_rad: float) -> float:
    """Wrap an angle modulo pi into [-pi/2, pi/2)."""
    return (angle_rad + math.pi / 2) % math.pi - math.pi / 2


def approach_tilt_rad(rotation: np.ndarray) -> float:
    """Return the angle between the approach axis (TCP x) and straight down (world -z)."""
    return math.acos(max(-1.0, min(1.0, -float(rotation[2, 0]))))


def rotation_log(rotation: np.ndarray) -> np.ndarray:
    """Return the rotation vector (axis times angle, radians) of a 3x3 rotation."""
    cos_angle = max(-1.0, min(1.0, (float(np.trace(rotation)) - 1.0) / 2.0))
    angle = math.acos(cos_angle)
    skew = np.array([
        rotation[2, 1] - rotation[1, 2],
        rotation[0, 2] - rotation[2, 0],
        rotation[1, 0] - rotation[0, 1],
    ])
    if angle < 1e-6:
        return 0.5 * skew
    if angle < math.pi - 1e-4:
        return angle / (2.0 * math.sin(angle)) * skew
    # Near a half turn the skew part vanishes: read the axis from the symmetric part.
    sym = (rotation + np.eye(3)) / 2.0
    k = int(np.argmax(np.diag(sym)))
    axis = sym[:, k] / math.sqrt(max(sym[k, k], 1e-12))
    if axis @ skew < 0.0:
        axis = -axis
    return angle * axis / np.linalg.norm(axis)


def rotation_exp(rotvec: np.ndarray) -> np.ndarray:
    """Return the 3x3 rotation of a rotation vector (Rodrigues' formula)."""
    angle = float(np.linalg.norm(rotvec))
    if angle < 1e-12:
        return np.eye(3)
    k = np.asarray(rotvec) / angle
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(angle) * kx + (1.0 - math.cos(angle)) * (kx @ kx)


def rotation_angle_rad(a: np.ndarray, b: np.ndarray) -> float:
    """Return the angle of the rotation that takes ``a`` to ``b``."""
    return float(np.linalg.norm(rotation_log(a.T @ b)))


def interpolate_rotation(a: np.ndarray, b: np.ndarray, fraction: float) -> np.ndarray:
    """Return the rotation ``fraction`` of the way from ``a`` to ``b`` (geodesic slerp)."""
    return a @ rotation_exp(fraction * rotation_log(a.T @ b))

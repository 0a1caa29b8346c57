"""
TF transforms and poses <-> numpy: ``geometry_msgs/Transform`` and ``Pose`` <-> 4x4.

Quaternions in messages are (x, y, z, w); our pose tuples (MuJoCo order) are
(x, y, z, qw, qx, qy, qz). Camera frames use the optical convention (x right, y down,
z forward) in both TF (REP 103 ``*_optical_frame``) and ``CameraModel``, so a camera's TF
transform from the world frame is its ``world_from_camera`` unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .fields import MessageFactory
from .stamps import make_header


def quat_to_matrix(w: float, x: float, y: float, z: float) -> np.ndarray:
    """
    Return the 3x3 rotation of a quaternion (normalised first).

    :raises ValueError: for a zero quaternion (an unset rotation: set w = 1 for identity).
    """
    q = np.array([w, x, y, z], dtype=float)
    n = np.linalg.norm(q)
    if n < 1e-12:
        raise ValueError('quaternion (0, 0, 0, 0) is not a rotation; set w=1.0 for identity')
    w, x, y, z = q / n
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def matrix_to_quat(rotation: np.ndarray) -> tuple[float, float, float, float]:
    """Return (w, x, y, z), w >= 0, of a 3x3 rotation matrix."""
    m = np.asarray(rotation, dtype=float)
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0:
        s = 2.0 * np.sqrt(trace + 1.0)
        q = [0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = [(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s]
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = [(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s]
    else:
        s = 2.0 * np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = [(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s]
    q = np.array(q) / np.linalg.norm(q)
    if q[0] < 0:
        q = -q
    return tuple(float(v) for v in q)


def transform_to_matrix(transform: Any) -> np.ndarray:
    """Return a ``geometry_msgs/Transform`` (or a TransformStamped's ``.transform``) as 4x4."""
    t, r = transform.translation, transform.rotation
    out = np.eye(4)
    out[:3, :3] = quat_to_matrix(r.w, r.x, r.y, r.z)
    out[:3, 3] = (t.x, t.y, t.z)
    return out


def _check_matrix(matrix: np.ndarray) -> np.ndarray:
    m = np.asarray(matrix, dtype=float)
    if m.shape != (4, 4) or not np.isfinite(m).all():
        raise ValueError(f'transform of shape {m.shape} vs a finite 4x4 homogeneous matrix')
    return m


def matrix_to_transform_stamped(matrix: np.ndarray, parent: str, child: str, stamp_s: float,
                                make: MessageFactory) -> Any:
    """
    Build a ``geometry_msgs/msg/TransformStamped`` from parent to child.

    ``matrix`` maps child-frame points into the parent frame (``parent_from_child``).

    :raises ValueError: for anything but a finite 4x4 matrix.
    """
    m = _check_matrix(matrix)
    w, x, y, z = matrix_to_quat(m[:3, :3])
    translation = make('geometry_msgs/msg/Vector3', x=float(m[0, 3]), y=float(m[1, 3]),
                       z=float(m[2, 3]))
    rotation = make('geometry_msgs/msg/Quaternion', x=x, y=y, z=z, w=w)
    transform = make('geometry_msgs/msg/Transform', translation=translation, rotation=rotation)
    return make('geometry_msgs/msg/TransformStamped', header=make_header(make, stamp_s, parent),
                child_frame_id=child, transform=transform)


def pose_to_tuple(pose: Any) -> tuple[float, ...]:
    """Return a ``geometry_msgs/Pose`` as (x, y, z, qw, qx, qy, qz), quaternion normalised."""
    p, o = pose.position, pose.orientation
    q = np.array([o.w, o.x, o.y, o.z], dtype=float)
    n = np.linalg.norm(q)
    if n < 1e-12:
        raise ValueError('pose orientation (0, 0, 0, 0) is not a rotation; set w=1.0')
    q /= n
    return (float(p.x), float(p.y), float(p.z), *(float(v) for v in q))


def tuple_to_pose(pose: tuple[float, ...] | np.ndarray, make: MessageFactory) -> Any:
    """
    Build a ``geometry_msgs/msg/Pose`` from (x, y, z) or (x, y, z, qw, qx, qy, qz).

    :raises ValueError: for another length.
    """
    v = np.asarray(pose, dtype=float).reshape(-1)
    if v.size not in (3, 7):
        raise ValueError(f'pose of {v.size} numbers vs 3 (x, y, z) or 7 (x, y, z, qw, qx, '
                         'qy, qz)')
    qw, qx, qy, qz = (1.0, 0.0, 0.0, 0.0) if v.size == 3 else v[3:]
    position = make('geometry_msgs/msg/Point', x=float(v[0]), y=float(v[1]), z=float(v[2]))
    orientation = make('geometry_msgs/msg/Quaternion', x=float(qx), y=float(qy), z=float(qz),
                       w=float(qw))
    return make('geometry_msgs/msg/Pose', position=position, orientation=orientation)

"""
Forward kinematics of one ARX-X5 arm: link frames, TCP pose and the TCP Jacobian.

Frames are 4x4 homogeneous transforms in metres. Without ``world_from_base`` they are in the
arm's base frame; with it (``Station.arm_base(arm).world_from_base``) they are in the world.
"""

from __future__ import annotations

import math

import numpy as np

from . import arx_x5

_DOF = len(arx_x5.JOINT_NAMES)


def _rpy_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def _origin_transforms() -> np.ndarray:
    out = np.tile(np.eye(4), (_DOF, 1, 1))
    for i in range(_DOF):
        out[i, :3, :3] = _rpy_matrix(*arx_x5.JOINT_ORIGIN_RPY_RAD[i])
        out[i, :3, 3] = arx_x5.JOINT_ORIGIN_XYZ_M[i]
    return out


_ORIGINS = _origin_transforms()
_AXIS_INDEX = [int(np.argmax(np.abs(axis))) for axis in arx_x5.JOINT_AXES]
_TCP = np.eye(4)
_TCP[0, 3] = arx_x5.TCP_OFFSET_M


def joint_vector(q_rad: object, name: str = 'q_rad') -> np.ndarray:
    """
    Return ``q_rad`` as a float array of the six arm joints, or raise for misuse.

    :param q_rad: six joint angles in radians (joint1..joint6).
    :param name: the argument name used in the error message.
    :returns: a new float64 array of shape (6,).
    :raises ValueError: for a wrong length or a NaN / infinite value.
    """
    q = np.array(q_rad, dtype=float).reshape(-1)
    if q.shape != (_DOF,):
        raise ValueError(
            f'{name} has {q.size} values vs {_DOF} joints; pass joint1..joint6 in radians'
        )
    if not np.all(np.isfinite(q)):
        bad = int(np.flatnonzero(~np.isfinite(q))[0])
        raise ValueError(
            f'{name}[{bad}]={q[bad]} is not finite vs a real angle; pass finite radians'
        )
    return q


def transform(matrix: object, name: str = 'world_from_base') -> np.ndarray:
    """
    Return ``matrix`` as a finite 4x4 float array, or raise for misuse.

    :raises ValueError: for a wrong shape or a NaN / infinite entry.
    """
    m = np.array(matrix, dtype=float)
    if m.shape != (4, 4):
        raise ValueError(f'{name} has shape {m.shape} vs (4, 4); pass a homogeneous transform')
    if not np.all(np.isfinite(m)):
        raise ValueError(f'{name} has NaN or infinite entries vs finite; pass a real transform')
    return m


def _joint_rotation(i: int, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    axis = _AXIS_INDEX[i]
    if axis == 0:
        r = [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]]
    elif axis == 1:
        r = [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]
    else:
        r = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
    out = np.eye(4)
    out[:3, :3] = r
    return out


def link_frames(q_rad: object, world_from_base: object | None = None) -> np.ndarray:
    """
    Compute the frames of the base, link1..link6 and the TCP.

    :param q_rad: six joint angles in radians.
    :param world_from_base: 4x4 mounting of the arm; None gives base-frame results.
    :returns: an (8, 4, 4) array: index 0 = base, 1..6 = link1..link6, 7 = TCP.
    :raises ValueError: for a wrong-length or non-finite input.
    """
    q = joint_vector(q_rad)
    base = np.eye(4) if world_from_base is None else transform(world_from_base)
    return _frames(q, base)


def _frames(q: np.ndarray, base: np.ndarray) -> np.ndarray:
    frames = np.empty((_DOF + 2, 4, 4))
    frames[0] = base
    current = base
    for i in range(_DOF):
        current = current @ _ORIGINS[i] @ _joint_rotation(i, q[i])
        frames[i + 1] = current
    frames[-1] = current @ _TCP
    return frames


def tcp_pose(q_rad: object, world_from_base: object | None = None) -> np.ndarray:
    """
    Return the 4x4 TCP pose: origin at the finger pad centre, x = approach, y = closing line.

    :param q_rad: six joint angles in radians.
    :param world_from_base: 4x4 mounting of the arm; None gives the base frame.
    :returns: the 4x4 pose of the TCP.
    :raises ValueError: for a wrong-length or non-finite input.
    """
    return link_frames(q_rad, world_from_base)[-1]


def fingertip_position(tcp: np.ndarray) -> np.ndarray:
    """Return the finger tip point, ``FINGERTIP_BEYOND_TCP_M`` along the approach axis."""
    return tcp[:3, 3] + arx_x5.FINGERTIP_BEYOND_TCP_M * tcp[:3, 0]


def tcp_jacobian(frames: np.ndarray) -> np.ndarray:
    """
    Return the 6x6 geometric Jacobian of the TCP from ``link_frames`` output.

    Rows 0..2 are the linear velocity (m/rad), rows 3..5 the angular velocity, both in the
    frame the link frames are expressed in.
    """
    axes = np.einsum('kij,kj->ki', frames[1:_DOF + 1, :3, :3], arx_x5.JOINT_AXES)
    lever = frames[-1, :3, 3] - frames[1:_DOF + 1, :3, 3]
    jac = np.empty((6, _DOF))
    jac[0] = axes[:, 1] * lever[:, 2] - axes[:, 2] * lever[:, 1]
    jac[1] = axes[:, 2] * lever[:, 0] - axes[:, 0] * lever[:, 2]
    jac[2] = axes[:, 0] * lever[:, 1] - axes[:, 1] * lever[:, 0]
    jac[3:] = axes.T
    return jac

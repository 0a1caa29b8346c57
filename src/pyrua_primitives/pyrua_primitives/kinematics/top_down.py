"""
Closed-form top-down arm shapes of the ARX-X5: IK seeds and the reachable envelope.

A top-down TCP (approach axis straight down) needs joint5 = 0, so joint2..joint4 form a
planar arm in the vertical plane through the base axis: upper arm 0.264 m, forearm 0.2513 m,
and joint4 = joint2 - joint3 - pi/2 keeps the wrist vertical. The soft limit of joint4
(+-1.29 rad) then keeps the forearm below horizontal, which caps how high and how far a
top-down grasp can go. This module solves that planar arm in closed form (ignoring the
0.5 mm lateral wrist offset, which the numerical IK removes) and explains a target outside
the envelope with numbers.
"""

from __future__ import annotations

import math

import numpy as np

from . import arx_x5
from .forward import tcp_pose

_SHOULDER_FORWARD_M = float(arx_x5.JOINT_ORIGIN_XYZ_M[1, 0])
_SHOULDER_HEIGHT_M = float(arx_x5.JOINT_ORIGIN_XYZ_M[0, 2] + arx_x5.JOINT_ORIGIN_XYZ_M[1, 2])
_UPPER_M = float(-arx_x5.JOINT_ORIGIN_XYZ_M[2, 0])
_FORE_X, _FORE_Z = arx_x5.JOINT_ORIGIN_XYZ_M[3, 0], -arx_x5.JOINT_ORIGIN_XYZ_M[3, 2]
_FORE_M = math.hypot(_FORE_X, _FORE_Z)
_FORE_BEND_RAD = math.atan2(_FORE_Z, _FORE_X)
# joint4 origin to the TCP along the approach axis: link4 -> link6 (x offsets) + TCP.
_WRIST_TO_TCP_M = float(
    arx_x5.JOINT_ORIGIN_XYZ_M[4, 0] + arx_x5.JOINT_ORIGIN_XYZ_M[5, 0] + arx_x5.TCP_OFFSET_M
)


def planar_shapes(
    distance_m: float,
    height_m: float,
    tilt_rad: float = 0.0,
    lower_rad: np.ndarray = arx_x5.LOWER_LIMITS_RAD,
    upper_rad: np.ndarray = arx_x5.UPPER_LIMITS_RAD,
) -> list[tuple[float, float, float]]:
    """
    Return the (joint2, joint3, joint4) shapes that put a top-down TCP at a spot.

    :param distance_m: horizontal distance of the TCP from the base axis, metres.
    :param height_m: TCP height above the base plane, metres.
    :param tilt_rad: approach axis tipped this far from straight down, outward (away from
        the base) when positive, staying in the vertical plane through the base axis.
    :param lower_rad: lower joint limits (radians) to filter by.
    :param upper_rad: upper joint limits (radians) to filter by.
    :returns: shapes inside the limits (elbow-up first); empty when there is none.
    """
    shapes = []
    for q in _raw_shapes(distance_m, height_m, tilt_rad):
        if all(lower_rad[i + 1] <= q[i] <= upper_rad[i + 1] for i in range(3)):
            shapes.append(q)
    return shapes


def _raw_shapes(
    distance_m: float, height_m: float, tilt_rad: float = 0.0
) -> list[tuple[float, float, float]]:
    reach_x = distance_m - _WRIST_TO_TCP_M * math.sin(tilt_rad) - _SHOULDER_FORWARD_M
    reach_z = height_m + _WRIST_TO_TCP_M * math.cos(tilt_rad) - _SHOULDER_HEIGHT_M
    cos_bend = (reach_x**2 + reach_z**2 - _UPPER_M**2 - _FORE_M**2) / (2 * _UPPER_M * _FORE_M)
    if abs(cos_bend) > 1.0:
        return []
    shapes = []
    for bend in (-math.acos(cos_bend), math.acos(cos_bend)):
        upper_pitch = math.atan2(reach_z, reach_x) - math.atan2(
            _FORE_M * math.sin(bend), _UPPER_M + _FORE_M * math.cos(bend)
        )
        q2 = math.pi - upper_pitch
        q3 = bend + math.pi - _FORE_BEND_RAD
        shapes.append((q2, q3, q2 - q3 - math.pi / 2 + tilt_rad))
    return shapes


def top_down_seeds(target_base: np.ndarray, q6_rad: float | None = None) -> list[np.ndarray]:
    """
    Return full joint seeds for a top-down TCP pose given in the base frame; may be empty.

    The approach axis may be tipped from straight down within the vertical plane through
    the base axis (a tilted approach); any other approach gives no seeds.

    :param target_base: 4x4 TCP target in the arm's base frame.
    :param q6_rad: joint6 for the seeds; None turns joint6 so the closing line (TCP y)
        matches the target's, and drops shapes whose joint6 would leave its soft limits.
    :returns: 6-vectors with joint1 aimed at the target and joint5 = 0. Top-down, joint1
        and joint6 both turn about the vertical, so joint6 is fixed by the target: an empty
        list for ``q6_rad=None`` means this closing line is out of joint6's range.
    """
    x, y, z = target_base[:3, 3]
    azimuth = math.atan2(y, x)
    approach = target_base[:3, 0]
    outward = approach[0] * math.cos(azimuth) + approach[1] * math.sin(azimuth)
    sideways = -approach[0] * math.sin(azimuth) + approach[1] * math.cos(azimuth)
    if abs(sideways) > 1e-6:
        return []
    tilt = math.atan2(outward, -approach[2])
    seeds = []
    for q2, q3, q4 in planar_shapes(math.hypot(x, y), float(z), tilt):
        q = np.array([azimuth, q2, q3, q4, 0.0, 0.0 if q6_rad is None else q6_rad])
        if q6_rad is None:
            # joint6 turns the TCP about its approach axis: the angle from y to the goal's y.
            tcp = tcp_pose(q)
            q[5] = math.atan2(float(np.cross(tcp[:3, 1], target_base[:3, 1]) @ tcp[:3, 0]),
                              float(tcp[:3, 1] @ target_base[:3, 1]))
            lower, upper = arx_x5.LOWER_LIMITS_RAD[5], arx_x5.UPPER_LIMITS_RAD[5]
            if not lower <= q[5] <= upper:
                continue
        seeds.append(q)
    return seeds


def envelope_reason(xyz_base_m: np.ndarray) -> str:
    """
    Explain why a top-down TCP at ``xyz_base_m`` (base frame) is out of reach, with numbers.

    :returns: ``''`` when a shape inside the limits exists, else a sentence naming the
        blocking limit, the farthest top-down distance at this height and the highest
        top-down height at this distance.
    """
    azimuth = math.atan2(xyz_base_m[1], xyz_base_m[0])
    distance = math.hypot(xyz_base_m[0], xyz_base_m[1])
    height = float(xyz_base_m[2])
    lower, upper = arx_x5.LOWER_LIMITS_RAD, arx_x5.UPPER_LIMITS_RAD
    if not lower[0] <= azimuth <= upper[0]:
        return (
            f'direction {math.degrees(azimuth):.0f} deg from the arm front vs joint1 soft '
            f'limits +-{math.degrees(upper[0]):.0f} deg'
        )
    if planar_shapes(distance, height):
        return ''
    raw = _raw_shapes(distance, height)
    if not raw:
        blocking = 'beyond the stretched arm'
    else:
        q = raw[0]
        i = max(range(3), key=lambda k: max(lower[k + 1] - q[k], q[k] - upper[k + 1]))
        limit = lower[i + 1] if q[i] < lower[i + 1] else upper[i + 1]
        blocking = (
            f'{arx_x5.JOINT_NAMES[i + 1]} would need {q[i]:+.2f} rad vs soft limit '
            f'{limit:+.2f} rad'
        )
    far, high = top_down_distances(height), top_down_heights(distance)
    ranges = (
        f'at this height top-down reaches {far[0]:.2f}-{far[1]:.2f} m out'
        if far else 'no top-down grasp reaches this height'
    )
    ranges += (
        f', at this distance {high[0]:.3f}-{high[1]:.3f} m high' if high else
        ', no top-down grasp reaches this distance'
    )
    return (
        f'top-down TCP {distance:.3f} m out and {height:.3f} m above the base: {blocking} '
        f'({ranges})'
    )


def top_down_distances(height_m: float) -> tuple[float, float] | None:
    """
    Return the nearest and farthest top-down TCP distances from the base axis at a height.

    :param height_m: TCP height above the base plane, metres.
    :returns: ``(nearest, farthest)`` in metres on a 5 mm grid (both reachable), or ``None``
        when no top-down shape reaches this height.
    """
    far = [d / 200 for d in range(0, 161) if planar_shapes(d / 200, height_m)]
    return (far[0], far[-1]) if far else None


def top_down_heights(distance_m: float) -> tuple[float, float] | None:
    """
    Return the lowest and highest top-down TCP heights above the base plane at a distance.

    :param distance_m: horizontal TCP distance from the base axis, metres.
    :returns: ``(lowest, highest)`` in metres on a 5 mm grid from the base plane up (both
        reachable), or ``None`` when no top-down shape reaches this distance.
    """
    high = [h / 200 for h in range(0, 121) if planar_shapes(distance_m, h / 200)]
    return (high[0], high[-1]) if high else None

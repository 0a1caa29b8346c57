"""
Geometric predicates the success checks are built from (RoboTwin style, §3.1).

"Placed" means: XY within a tolerance, resting (z inside a band), grippers released.
Every function is pure: it reads a ``SceneState`` and the layout's ``ObjectSpec`` objects.
"""

from __future__ import annotations

import numpy as np

from . import SceneState
from ..layout import BLOCK_SIZE_M, BUTTON_BASE_HEIGHT_M, HOLE_OPENING_M, ObjectSpec, TABLE_Z

REST_BAND_M = 0.008
"""How far a resting object's centre may sit from its ideal resting height."""
LIFTED_M = 0.02
"""Raised this much above its start, an object counts as picked up."""
BOWL_INNER_M = 0.045
"""A block counts as in a bowl when its centre is within this of the bowl's axis."""
BOWL_FLOOR_M = 0.006
PRESSED_M = 0.005
"""A button counts as pressed when its cap is displaced at least this far."""


def position(state: SceneState, spec: ObjectSpec) -> np.ndarray:
    """Return the current centre (x, y, z) of ``spec``'s body."""
    return np.asarray(state.poses[spec.name][:3], dtype=float)


def rotation(state: SceneState, spec: ObjectSpec) -> np.ndarray:
    """Return the current 3x3 world rotation of ``spec``'s body."""
    w, x, y, z = np.asarray(state.poses[spec.name][3:7], dtype=float)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def xy_offset(state: SceneState, spec: ObjectSpec, xy: np.ndarray) -> float:
    """Return the horizontal distance from ``spec``'s centre to ``xy``, metres."""
    return float(np.linalg.norm(position(state, spec)[:2] - np.asarray(xy[:2])))


def bottom_z(state: SceneState, spec: ObjectSpec) -> float:
    """Return the lowest z of ``spec``'s box (any orientation)."""
    half = np.asarray(spec.size) / 2.0
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    world = (rotation(state, spec) @ (corners * half).T).T + position(state, spec)
    return float(world[:, 2].min())


def lift_m(state: SceneState, spec: ObjectSpec) -> float:
    """Return how far ``spec`` is above its starting height, metres."""
    return float(position(state, spec)[2] - spec.pose[2])


def moved_m(state: SceneState, spec: ObjectSpec) -> float:
    """Return how far ``spec`` is (horizontally) from where the layout put it, metres."""
    return xy_offset(state, spec, spec.xy)


def resting_on_table(state: SceneState, spec: ObjectSpec) -> bool:
    """Return whether ``spec`` sits on the table top (centre at rest height within the band)."""
    return bool(abs(position(state, spec)[2] - (TABLE_Z + spec.size[2] / 2.0)) <= REST_BAND_M)


def released(state: SceneState) -> bool:
    """Return whether every gripper is open (released)."""
    return bool(all(state.gripper_open.values()))


def in_bowl(state: SceneState, obj: ObjectSpec, bowl: ObjectSpec) -> bool:
    """Return whether ``obj`` rests inside ``bowl``: near its axis and down on its floor."""
    centre = position(state, obj)
    resting_z = TABLE_Z + BOWL_FLOOR_M + obj.size[2] / 2.0
    return bool(
        xy_offset(state, obj, bowl.xy) <= BOWL_INNER_M
        and abs(centre[2] - resting_z) <= REST_BAND_M
    )


def above_bowl(state: SceneState, obj: ObjectSpec, bowl: ObjectSpec) -> bool:
    """Return whether ``obj`` is lifted and over ``bowl``'s opening."""
    return bool(xy_offset(state, obj, bowl.xy) <= BOWL_INNER_M and lift_m(state, obj) >= LIFTED_M)


def stacked_on(
    state: SceneState, upper: ObjectSpec, lower: ObjectSpec, tol_xy_m: float
) -> bool:
    """Return whether ``upper`` rests on ``lower``: XY within ``tol_xy_m``, one block higher."""
    up, low = position(state, upper), position(state, lower)
    gap = (upper.size[2] + lower.size[2]) / 2.0
    return bool(
        float(np.linalg.norm(up[:2] - low[:2])) <= tol_xy_m
        and abs((up[2] - low[2]) - gap) <= REST_BAND_M
    )


def in_square(state: SceneState, obj: ObjectSpec, square: ObjectSpec, half_m: float) -> bool:
    """Return whether ``obj``'s centre lies inside ``square``'s footprint shrunk to ``half_m``."""
    local = rotation(state, square).T @ (position(state, obj) - position(state, square))
    return bool(abs(local[0]) <= half_m and abs(local[1]) <= half_m)


def peg_inserted(state: SceneState, peg: ObjectSpec, hole: ObjectSpec) -> bool:
    """Return whether ``peg``'s centre is inside the opening and its bottom below the hole top."""
    hole_top = TABLE_Z + hole.size[2]
    inside = in_square(state, peg, hole, HOLE_OPENING_M / 2.0)
    return inside and bool(bottom_z(state, peg) < hole_top)


def button_press_m(state: SceneState, button: ObjectSpec) -> float:
    """Return how far ``button``'s cap is pushed down from its rest height, metres."""
    return float(TABLE_Z + BUTTON_BASE_HEIGHT_M - position(state, button)[2])


def block_resting_height(levels: int) -> float:
    """Return the centre height of a 4 cm block resting ``levels`` blocks above the table."""
    return TABLE_Z + BLOCK_SIZE_M * (levels + 0.5)

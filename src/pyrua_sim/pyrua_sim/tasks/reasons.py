"""
Why a success condition is not met: one line per unmet condition, with the numbers.

Each function mirrors a predicate of ``predicates`` and returns '' when it holds, else what
is off against which bound ("red block: 62 mm from the red bowl's axis vs <= 45 mm"). A
task's ``unmet`` lists the lines of its success check (evaluator side only: DESIGN.md rule 4).
"""

from __future__ import annotations

import numpy as np

from . import SceneState
from .predicates import (
    bottom_z,
    BOWL_FLOOR_M,
    BOWL_INNER_M,
    in_square,
    position,
    REST_BAND_M,
    rotation,
    xy_offset,
)
from ..layout import HOLE_OPENING_M, ObjectSpec, TABLE_Z


def _mm(metres: float) -> str:
    return f'{metres * 1000:.0f} mm'


def _rest(spec: ObjectSpec, centre_z: float, ideal_z: float, where: str) -> str:
    off = centre_z - ideal_z
    if abs(off) <= REST_BAND_M:
        return ''
    hint = ' (on another object, or still held up?)' if off > 0 else ''
    return (f'{spec.noun}: centre {_mm(abs(off))} {"above" if off > 0 else "below"} resting '
            f'{where} vs +-{_mm(REST_BAND_M)}{hint}')


def not_released(state: SceneState) -> str:
    """Return which grippers are still closed, or ''."""
    closed = [f'{arm} ({_mm(state.gripper_width_m[arm])})'
              for arm, is_open in state.gripper_open.items() if not is_open]
    if not closed:
        return ''
    return (f'gripper not released: {", ".join(closed)} open vs fully open; open it once '
            'the object rests')


def not_in_bowl(state: SceneState, obj: ObjectSpec, bowl: ObjectSpec) -> str:
    """Return why ``obj`` does not rest in ``bowl`` (the axis, then the floor), or ''."""
    off = xy_offset(state, obj, bowl.xy)
    if off > BOWL_INNER_M:
        return f"{obj.noun}: {_mm(off)} from the {bowl.noun}'s axis vs <= {_mm(BOWL_INNER_M)}"
    why = _rest(obj, position(state, obj)[2], TABLE_Z + BOWL_FLOOR_M + obj.size[2] / 2.0,
                f"on the {bowl.noun}'s floor")
    return why and (why + '; in a bowl means down on its floor: blocks side by side, not '
                    'stacked')


def not_resting(state: SceneState, spec: ObjectSpec) -> str:
    """Return why ``spec`` does not sit on the table top, or ''."""
    return _rest(spec, position(state, spec)[2], TABLE_Z + spec.size[2] / 2.0, 'on the table')


def not_near(state: SceneState, spec: ObjectSpec, xy: np.ndarray, tol_m: float,
             what: str) -> str:
    """Return how far ``spec``'s centre is from ``xy`` when beyond ``tol_m``, or ''."""
    off = xy_offset(state, spec, xy)
    return '' if off <= tol_m else f'{spec.noun}: {_mm(off)} from {what} vs <= {_mm(tol_m)}'


def not_stacked(state: SceneState, upper: ObjectSpec, lower: ObjectSpec,
                tol_xy_m: float) -> str:
    """Return why ``upper`` does not rest on ``lower`` (offset, then height), or ''."""
    up, low = position(state, upper), position(state, lower)
    off = float(np.linalg.norm(up[:2] - low[:2]))
    if off > tol_xy_m:
        return (f'{upper.noun}: {_mm(off)} off the centre of the {lower.noun} vs '
                f'<= {_mm(tol_xy_m)}')
    return _rest(upper, float(up[2]), float(low[2]) + (upper.size[2] + lower.size[2]) / 2.0,
                 f'on the {lower.noun}')


def not_in_square(state: SceneState, obj: ObjectSpec, square: ObjectSpec, half_m: float,
                  what: str) -> str:
    """Return how far ``obj``'s centre is outside ``square`` shrunk to ``half_m``, or ''."""
    if in_square(state, obj, square, half_m):
        return ''
    local = rotation(state, square).T @ (position(state, obj) - position(state, square))
    return (f'{obj.noun}: centre at ({_mm(local[0])}, {_mm(local[1])}) from the centre of '
            f'{what} vs within +-{_mm(half_m)} on both sides')


def not_inserted(state: SceneState, peg: ObjectSpec, hole: ObjectSpec) -> str:
    """Return why ``peg`` is not inserted (over the opening, then down in it), or ''."""
    outside = not_in_square(state, peg, hole, HOLE_OPENING_M / 2.0, 'the opening')
    if outside:
        return outside
    above = bottom_z(state, peg) - (TABLE_Z + hole.size[2])
    return '' if above < 0 else (f'{peg.noun}: bottom {_mm(above)} above the hole top vs '
                                 'below it (push it down)')


def lines(*reasons: str) -> tuple[str, ...]:
    """Return the non-empty reasons, in order."""
    return tuple(r for r in reasons if r)

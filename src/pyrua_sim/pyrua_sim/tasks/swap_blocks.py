"""Memory: exchange the positions of two blocks (each within 2 cm of the other's start)."""

from __future__ import annotations

import math

from . import register, stage_score, TaskDef
from .predicates import moved_m, released, resting_on_table, xy_offset
from .reasons import lines, not_near, not_released, not_resting
from ..layout import distinct_colours, make_object, Placer, reachable_arms

TOL_XY_M = 0.02


def sample(rng):
    """Place two blocks 12-30 cm apart that one arm reaches both of."""
    placer = Placer(rng)
    a_c, b_c = distinct_colours(rng, 2)
    a = placer.place('block')
    b = placer.place(
        'block', near=(a, 0.12, 0.30),
        accept=lambda xy: bool(set(reachable_arms(xy)) & set(reachable_arms(a))),
    )
    return (
        make_object('block', a_c, a, 'a', rng.uniform(-math.pi / 4, math.pi / 4)),
        make_object('block', b_c, b, 'b', rng.uniform(-math.pi / 4, math.pi / 4)),
    )


def instruct(objects):
    """Return 'Swap the positions of the <a> and the <b>.'."""
    return f'Swap the positions of the {objects[0].noun} and the {objects[1].noun}.'


def _at(state, block, spot):
    return xy_offset(state, block, spot.xy) <= TOL_XY_M and resting_on_table(state, block)


def success(layout, state, history):
    """Return whether each block rests within 2 cm of the other's start, released."""
    (a,), (b,) = layout.with_role('a'), layout.with_role('b')
    return _at(state, a, b) and _at(state, b, a) and released(state)


def progress(layout, state, history):
    """Stages: a block moved 3 cm 0.2, one block on the other's start 0.5, both 0.8."""
    (a,), (b,) = layout.with_role('a'), layout.with_role('b')
    placed = int(_at(state, a, b)) + int(_at(state, b, a))
    return stage_score(
        (max(moved_m(state, a), moved_m(state, b)) >= 0.03, placed >= 1, placed == 2),
        (0.2, 0.5, 0.8),
    )


def unmet(layout, state, history):
    """Return the unmet conditions: each block at the other's start, resting, released."""
    (a,), (b,) = layout.with_role('a'), layout.with_role('b')
    return lines(not_near(state, a, b.xy, TOL_XY_M, f"the {b.noun}'s start"),
                 not_resting(state, a),
                 not_near(state, b, a.xy, TOL_XY_M, f"the {a.noun}'s start"),
                 not_resting(state, b), not_released(state))


TASK = register(TaskDef('swap_blocks', 'Memory', sample, instruct, success, progress,
                        unmet=unmet,
                        summary="exchange two blocks' positions, <= 2 cm"))

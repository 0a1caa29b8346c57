"""Long-Horizon: stack three blocks in the named order (bottom, middle, top)."""

from __future__ import annotations

import math

from . import register, stage_score, TaskDef
from .predicates import lift_m, LIFTED_M, released, resting_on_table, stacked_on
from .reasons import lines, not_released, not_resting, not_stacked
from ..layout import ARM_BASES_XY, distinct_colours, make_object, Placer

TOL_XY_M = 0.02
ROLES = ('bottom', 'middle', 'top')


def sample(rng):
    """Place three blocks that one arm (chosen at random) reaches all of."""
    placer = Placer(rng)
    arm = tuple(ARM_BASES_XY)[int(rng.integers(2))]
    colours = distinct_colours(rng, 3)
    return tuple(
        make_object('block', colour, placer.place('block', reach=arm), role,
                    rng.uniform(-math.pi / 4, math.pi / 4))
        for colour, role in zip(colours, ROLES, strict=True)
    )


def instruct(objects):
    """Return the order, bottom first."""
    bottom, middle, top = objects[:3]
    return (f'Stack the blocks: the {bottom.noun} at the bottom, the {middle.noun} in the '
            f'middle and the {top.noun} on top.')


def _blocks(layout):
    return tuple(layout.with_role(role)[0] for role in ROLES)


def success(layout, state, history):
    """Return whether middle on bottom and top on middle (<= 2 cm each), all released."""
    bottom, middle, top = _blocks(layout)
    return (stacked_on(state, middle, bottom, TOL_XY_M)
            and stacked_on(state, top, middle, TOL_XY_M)
            and resting_on_table(state, bottom) and released(state))


def progress(layout, state, history):
    """Stages: middle lifted 0.2, middle on bottom 0.5, then top lifted 0.7, all stacked 0.85."""
    bottom, middle, top = _blocks(layout)
    two = stacked_on(state, middle, bottom, TOL_XY_M) and resting_on_table(state, bottom)
    return stage_score(
        (lift_m(state, middle) >= LIFTED_M, two, two and lift_m(state, top) >= 0.05,
         two and stacked_on(state, top, middle, TOL_XY_M)),
        (0.2, 0.5, 0.7, 0.85),
    )


def unmet(layout, state, history):
    """Return the unmet conditions: each level stacked, the bottom on the table, released."""
    bottom, middle, top = _blocks(layout)
    return lines(not_stacked(state, middle, bottom, TOL_XY_M),
                 not_stacked(state, top, middle, TOL_XY_M), not_resting(state, bottom),
                 not_released(state))


TASK = register(TaskDef('stack_three', 'Long-Horizon', sample, instruct, success, progress,
                        unmet=unmet,
                        summary='three blocks in a named order'))

"""Precision: put the named block on the other one, centred within 1.5 cm."""

from __future__ import annotations

import math

import numpy as np

from . import register, stage_score, TaskDef
from .predicates import lift_m, LIFTED_M, position, released, resting_on_table, stacked_on
from .reasons import lines, not_released, not_resting, not_stacked
from ..layout import distinct_colours, make_object, Placer, reachable_arms

TOL_XY_M = 0.015


def sample(rng):
    """Place two blocks 10-35 cm apart that one arm reaches both of."""
    placer = Placer(rng)
    upper_c, lower_c = distinct_colours(rng, 2)
    lower = placer.place('block')
    upper = placer.place(
        'block', near=(lower, 0.10, 0.35),
        accept=lambda xy: bool(set(reachable_arms(xy)) & set(reachable_arms(lower))),
    )
    return (
        make_object('block', upper_c, upper, 'upper', rng.uniform(-math.pi / 4, math.pi / 4)),
        make_object('block', lower_c, lower, 'lower', rng.uniform(-math.pi / 4, math.pi / 4)),
    )


def instruct(objects):
    """Return 'Put the <upper> on the <lower>.'."""
    return f'Put the {objects[0].noun} on the {objects[1].noun}.'


def success(layout, state, history):
    """Return whether the upper block rests on the lower one (<= 1.5 cm) and all is released."""
    (upper,), (lower,) = layout.with_role('upper'), layout.with_role('lower')
    return (stacked_on(state, upper, lower, TOL_XY_M) and resting_on_table(state, lower)
            and released(state))


def progress(layout, state, history):
    """Stages: lifted 0.3, held over the lower block (<= 3 cm) 0.6, stacked 0.8."""
    (upper,), (lower,) = layout.with_role('upper'), layout.with_role('lower')
    up, low = position(state, upper), position(state, lower)
    over = float(np.linalg.norm(up[:2] - low[:2])) <= 0.03 and up[2] > low[2] + 0.03
    return stage_score(
        (lift_m(state, upper) >= LIFTED_M, over, stacked_on(state, upper, lower, TOL_XY_M)),
        (0.3, 0.6, 0.8),
    )


def unmet(layout, state, history):
    """Return the unmet conditions: stacked, the lower one on the table, released."""
    (upper,), (lower,) = layout.with_role('upper'), layout.with_role('lower')
    return lines(not_stacked(state, upper, lower, TOL_XY_M), not_resting(state, lower),
                 not_released(state))


TASK = register(TaskDef('stack_blocks', 'Precision', sample, instruct, success, progress,
                        unmet=unmet,
                        summary='one block on another, <= 1.5 cm offset'))

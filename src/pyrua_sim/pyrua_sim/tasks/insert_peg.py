"""Precision: insert the square peg into the square hole (4 mm clearance)."""

from __future__ import annotations

import math

from . import register, stage_score, TaskDef
from .predicates import in_square, lift_m, LIFTED_M, peg_inserted, released
from .reasons import lines, not_inserted, not_released
from ..layout import distinct_colours, HOLE_OPENING_M, make_object, Placer, reachable_arms


def sample(rng):
    """Place the hole fixture and an upright peg 12-35 cm away, one arm reaching both."""
    placer = Placer(rng)
    (peg_c,) = distinct_colours(rng, 1)
    hole = placer.place('hole')
    peg = placer.place(
        'peg', near=(hole, 0.12, 0.35),
        accept=lambda xy: bool(set(reachable_arms(xy)) & set(reachable_arms(hole))),
    )
    return (
        make_object('peg', peg_c, peg, 'target', rng.uniform(-math.pi / 4, math.pi / 4)),
        make_object('hole', 'white', hole, 'goal', rng.uniform(-math.pi / 6, math.pi / 6)),
    )


def instruct(objects):
    """Return 'Insert the <peg> into the hole.' (the fixture is not named by colour)."""
    return f'Insert the {objects[0].noun} into the hole.'


def success(layout, state, history):
    """Return whether the peg is in the opening, bottom below the hole top, released."""
    (peg,), (hole,) = layout.with_role('target'), layout.with_role('goal')
    return peg_inserted(state, peg, hole) and released(state)


def progress(layout, state, history):
    """Stages: lifted 0.3, over the opening 0.6, inserted (not yet released) 0.8."""
    (peg,), (hole,) = layout.with_role('target'), layout.with_role('goal')
    return stage_score(
        (lift_m(state, peg) >= LIFTED_M, in_square(state, peg, hole, HOLE_OPENING_M / 2.0),
         peg_inserted(state, peg, hole)),
        (0.3, 0.6, 0.8),
    )


def unmet(layout, state, history):
    """Return the unmet conditions: inserted, released."""
    (peg,), (hole,) = layout.with_role('target'), layout.with_role('goal')
    return lines(not_inserted(state, peg, hole), not_released(state))


TASK = register(TaskDef('insert_peg', 'Precision', sample, instruct, success, progress,
                        unmet=unmet,
                        summary='square peg into a hole with 4 mm clearance'))

"""Precision: put the named block on the cross marker of the named colour, within 1 cm."""

from __future__ import annotations

import math

from . import register, stage_score, TaskDef
from .predicates import lift_m, LIFTED_M, released, resting_on_table, xy_offset
from .reasons import lines, not_near, not_released, not_resting
from ..layout import distinct_colours, make_object, Placer, reachable_arms

TOL_XY_M = 0.01


def sample(rng):
    """Place a goal marker, a decoy marker and a block one arm reaches with the goal."""
    placer = Placer(rng)
    block_c, goal_c, other_c = distinct_colours(rng, 3)
    goal = placer.place('marker')
    other = placer.place('marker')
    block = placer.place(
        'block', near=(goal, 0.12, 0.40),
        accept=lambda xy: bool(set(reachable_arms(xy)) & set(reachable_arms(goal))),
    )
    return (
        make_object('block', block_c, block, 'target', rng.uniform(-math.pi / 4, math.pi / 4)),
        make_object('marker', goal_c, goal, 'goal', rng.uniform(-math.pi / 4, math.pi / 4)),
        make_object('marker', other_c, other, 'decoy', rng.uniform(-math.pi / 4, math.pi / 4)),
    )


def instruct(objects):
    """Return 'Put the <block> on the <marker>.'."""
    return f'Put the {objects[0].noun} on the {objects[1].noun}.'


def success(layout, state, history):
    """Return whether the block rests within 1 cm of the marker centre, released."""
    (block,), (goal,) = layout.with_role('target'), layout.with_role('goal')
    return (xy_offset(state, block, goal.xy) <= TOL_XY_M and resting_on_table(state, block)
            and released(state))


def progress(layout, state, history):
    """Stages: lifted 0.3, within 3 cm of the marker 0.6, within 1 cm 0.8."""
    (block,), (goal,) = layout.with_role('target'), layout.with_role('goal')
    off = xy_offset(state, block, goal.xy)
    return stage_score(
        (lift_m(state, block) >= LIFTED_M, off <= 0.03, off <= TOL_XY_M), (0.3, 0.6, 0.8)
    )


def unmet(layout, state, history):
    """Return the unmet conditions: on the marker centre, resting, released."""
    (block,), (goal,) = layout.with_role('target'), layout.with_role('goal')
    return lines(not_near(state, block, goal.xy, TOL_XY_M, f'the {goal.noun} centre'),
                 not_resting(state, block), not_released(state))


TASK = register(TaskDef('place_on_marker', 'Precision', sample, instruct, success, progress,
                        unmet=unmet,
                        summary='block within 1 cm of a cross marker'))

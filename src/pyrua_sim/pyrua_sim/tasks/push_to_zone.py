"""Generalization: push the named block into the zone of the named colour."""

from __future__ import annotations

import math

from . import register, stage_score, TaskDef
from .predicates import in_square, moved_m, position, resting_on_table
from .reasons import lines, not_in_square, not_resting
from ..layout import distinct_colours, make_object, Placer, reachable_arms, ZONE_SIZE_M

ZONE_HALF_M = ZONE_SIZE_M[0] / 2.0


def sample(rng):
    """Place a goal zone, a decoy zone and a block 15-30 cm from the goal, one arm for both."""
    placer = Placer(rng)
    block_c, goal_c, other_c = distinct_colours(rng, 3)
    goal = placer.place('zone')
    other = placer.place('zone')
    block = placer.place(
        'block', near=(goal, 0.15, 0.30),
        accept=lambda xy: bool(set(reachable_arms(xy)) & set(reachable_arms(goal))),
    )
    return (
        make_object('block', block_c, block, 'target', rng.uniform(-math.pi / 4, math.pi / 4)),
        make_object('zone', goal_c, goal, 'goal', rng.uniform(-math.pi / 4, math.pi / 4)),
        make_object('zone', other_c, other, 'decoy', rng.uniform(-math.pi / 4, math.pi / 4)),
    )


def instruct(objects):
    """Return 'Push the <block> into the <zone>.'."""
    return f'Push the {objects[0].noun} into the {objects[1].noun}.'


def success(layout, state, history):
    """Return whether the block's centre is inside the goal zone, resting on the table."""
    (block,), (goal,) = layout.with_role('target'), layout.with_role('goal')
    return in_square(state, block, goal, ZONE_HALF_M) and resting_on_table(state, block)


def progress(layout, state, history):
    """Stages: moved 2 cm closer 0.3, half the way 0.6 (distances from the zone centre)."""
    (block,), (goal,) = layout.with_role('target'), layout.with_role('goal')
    start = float(((block.xy - goal.xy) ** 2).sum() ** 0.5)
    now = float(((position(state, block)[:2] - goal.xy) ** 2).sum() ** 0.5)
    return stage_score(
        (moved_m(state, block) >= 0.02 and now <= start - 0.02, now <= start / 2.0),
        (0.3, 0.6),
    )


def unmet(layout, state, history):
    """Return the unmet conditions: centre in the zone, resting on the table."""
    (block,), (goal,) = layout.with_role('target'), layout.with_role('goal')
    return lines(not_in_square(state, block, goal, ZONE_HALF_M, f'the {goal.noun}'),
                 not_resting(state, block))


TASK = register(TaskDef('push_to_zone', 'Generalization', sample, instruct, success, progress,
                        unmet=unmet,
                        summary='push a block into a coloured zone'))

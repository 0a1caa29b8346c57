"""Generalization: put the named block into the named bowl (another bowl is a decoy)."""

from __future__ import annotations

import math

from . import register, stage_score, TaskDef
from .predicates import above_bowl, in_bowl, lift_m, LIFTED_M, released
from .reasons import lines, not_in_bowl, not_released
from ..layout import distinct_colours, make_object, Placer, reachable_arms


def sample(rng):
    """Place a goal bowl, a decoy bowl and a block that one arm reaches with the goal."""
    placer = Placer(rng)
    block_c, goal_c, other_c = distinct_colours(rng, 3)
    goal = placer.place('bowl')
    other = placer.place('bowl')
    block = placer.place(
        'block', near=(goal, 0.15, 0.45),
        accept=lambda xy: bool(set(reachable_arms(xy)) & set(reachable_arms(goal))),
    )
    yaw = rng.uniform(-math.pi / 4, math.pi / 4)
    return (
        make_object('block', block_c, block, 'target', yaw),
        make_object('bowl', goal_c, goal, 'goal'),
        make_object('bowl', other_c, other, 'decoy'),
    )


def instruct(objects):
    """Return 'Put the <block> in the <bowl>.'."""
    block, goal = objects[0], objects[1]
    return f'Put the {block.noun} in the {goal.noun}.'


def success(layout, state, history):
    """Return whether the block rests in the goal bowl with the grippers released."""
    (block,), (goal,) = layout.with_role('target'), layout.with_role('goal')
    return in_bowl(state, block, goal) and released(state)


def progress(layout, state, history):
    """Stages: lifted 0.3, over the goal bowl 0.6, in it (not yet released) 0.8."""
    (block,), (goal,) = layout.with_role('target'), layout.with_role('goal')
    return stage_score(
        (lift_m(state, block) >= LIFTED_M, above_bowl(state, block, goal),
         in_bowl(state, block, goal)),
        (0.3, 0.6, 0.8),
    )


def unmet(layout, state, history):
    """Return the unmet conditions: in the bowl, released."""
    (block,), (goal,) = layout.with_role('target'), layout.with_role('goal')
    return lines(not_in_bowl(state, block, goal), not_released(state))


TASK = register(TaskDef('pick_place', 'Generalization', sample, instruct, success, progress,
                        summary='block into the named bowl', unmet=unmet))

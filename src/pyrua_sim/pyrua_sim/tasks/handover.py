"""
Open: the block starts out of the right arm's reach and must end in a bowl out of the left's.

Only the left arm can pick it up and only the right arm can put it in the bowl, so the
agent has to find a way to pass it over (put it down in the middle, or hand it over).
"""

from __future__ import annotations

import math

from . import register, stage_score, TaskDef
from .predicates import above_bowl, in_bowl, lift_m, LIFTED_M, position, released
from .reasons import lines, not_in_bowl, not_released
from ..layout import (
    arm_distance,
    distinct_colours,
    grasp_reachable,
    make_object,
    OUT_OF_REACH_M,
    Placer,
)

X_RANGE = (-0.55, 0.55)


def sample(rng):
    """Place the block left-only (> 0.62 m from the right base) and the bowl right-only."""
    placer = Placer(rng)
    block_c, bowl_c = distinct_colours(rng, 2)
    block = placer.place('block', reach='left', x_range=X_RANGE,
                         accept=lambda xy: arm_distance('right', xy) > OUT_OF_REACH_M)
    bowl = placer.place('bowl', reach='right', x_range=X_RANGE,
                        accept=lambda xy: arm_distance('left', xy) > OUT_OF_REACH_M)
    return (
        make_object('block', block_c, block, 'target', rng.uniform(-math.pi / 4, math.pi / 4)),
        make_object('bowl', bowl_c, bowl, 'goal'),
    )


def instruct(objects):
    """Return 'Put the <block> in the <bowl>.'."""
    return f'Put the {objects[0].noun} in the {objects[1].noun}.'


def success(layout, state, history):
    """Return whether the block rests in the bowl with the grippers released."""
    (block,), (bowl,) = layout.with_role('target'), layout.with_role('goal')
    return in_bowl(state, block, bowl) and released(state)


def progress(layout, state, history):
    """Stages: lifted 0.25, within the right arm's reach 0.5, over the bowl 0.7, in it 0.85."""
    (block,), (bowl,) = layout.with_role('target'), layout.with_role('goal')
    return stage_score(
        (lift_m(state, block) >= LIFTED_M, grasp_reachable('right', position(state, block)),
         above_bowl(state, block, bowl), in_bowl(state, block, bowl)),
        (0.25, 0.5, 0.7, 0.85),
    )


def unmet(layout, state, history):
    """Return the unmet conditions: in the bowl, released."""
    (block,), (bowl,) = layout.with_role('target'), layout.with_role('goal')
    return lines(not_in_bowl(state, block, bowl), not_released(state))


TASK = register(TaskDef('handover', 'Open', sample, instruct, success, progress,
                        summary='pass a block from the left arm to a bowl only the right reaches',
                        unmet=unmet))

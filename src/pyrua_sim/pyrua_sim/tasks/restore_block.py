"""Memory: put the block in the bowl, then back where it started (within 1.5 cm)."""

from __future__ import annotations

import math

from . import register, stage_score, TaskDef
from .predicates import above_bowl, in_bowl, lift_m, LIFTED_M, moved_m, released, resting_on_table
from .reasons import lines, not_near, not_released, not_resting
from ..layout import distinct_colours, make_object, Placer, reachable_arms

TOL_XY_M = 0.015
IN_BOWL = 'in_bowl'


def sample(rng):
    """Place a bowl and a block 15-35 cm away that one arm reaches with the bowl."""
    placer = Placer(rng)
    block_c, bowl_c = distinct_colours(rng, 2)
    bowl = placer.place('bowl')
    block = placer.place(
        'block', near=(bowl, 0.15, 0.35),
        accept=lambda xy: bool(set(reachable_arms(xy)) & set(reachable_arms(bowl))),
    )
    return (
        make_object('block', block_c, block, 'target', rng.uniform(-math.pi / 4, math.pi / 4)),
        make_object('bowl', bowl_c, bowl, 'goal'),
    )


def instruct(objects):
    """Return the two-step instruction."""
    block, bowl = objects[:2]
    return f'Put the {block.noun} in the {bowl.noun}, then put it back where it started.'


def events(layout, state):
    """Record ``'in_bowl'`` once the block has rested in the bowl."""
    (block,), (bowl,) = layout.with_role('target'), layout.with_role('goal')
    return frozenset({IN_BOWL}) if in_bowl(state, block, bowl) else frozenset()


def success(layout, state, history):
    """Return whether the block has been in the bowl and now rests at its start, released."""
    (block,) = layout.with_role('target')
    return (IN_BOWL in history and moved_m(state, block) <= TOL_XY_M
            and resting_on_table(state, block) and released(state))


def progress(layout, state, history):
    """Stages: lifted 0.2, over the bowl 0.35, been in it 0.5, out again 0.7, near start 0.85."""
    (block,), (bowl,) = layout.with_role('target'), layout.with_role('goal')
    been = IN_BOWL in history
    out = been and not in_bowl(state, block, bowl) and lift_m(state, block) >= LIFTED_M
    return stage_score(
        (lift_m(state, block) >= LIFTED_M, above_bowl(state, block, bowl), been, out,
         been and moved_m(state, block) <= 0.03),
        (0.2, 0.35, 0.5, 0.7, 0.85),
    )


def unmet(layout, state, history):
    """Return the unmet conditions: been in the bowl, back at its start, resting, released."""
    (block,), (bowl,) = layout.with_role('target'), layout.with_role('goal')
    been = '' if IN_BOWL in history else (f'{block.noun}: never rested in the {bowl.noun} '
                                          'vs first in it, then back')
    return lines(been, not_near(state, block, block.xy, TOL_XY_M, 'its start'),
                 not_resting(state, block), not_released(state))


TASK = register(TaskDef('restore_block', 'Memory', sample, instruct, success, progress,
                        unmet=unmet,
                        events=events, summary='into the bowl, then back to its start'))

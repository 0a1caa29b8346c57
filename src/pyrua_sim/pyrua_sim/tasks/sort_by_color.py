"""Long-Horizon: sort four blocks (two colours, two each) into the bowls of their colour."""

from __future__ import annotations

import math

from . import register, TaskDef
from .predicates import in_bowl, released
from .reasons import lines, not_in_bowl, not_released
from ..layout import distinct_colours, make_object, Placer, reachable_arms


def sample(rng):
    """Place two bowls, then two blocks per bowl colour, each reachable with its bowl."""
    placer = Placer(rng)
    colours = distinct_colours(rng, 2)
    bowls = [make_object('bowl', c, placer.place('bowl'), 'bowl') for c in colours]
    blocks = []
    for k in range(4):
        bowl = bowls[k % 2]
        xy = placer.place(
            'block', accept=lambda xy, b=bowl: bool(
                set(reachable_arms(xy)) & set(reachable_arms(b.xy))),
        )
        blocks.append(make_object('block', bowl.colour, xy, 'block',
                                  rng.uniform(-math.pi / 4, math.pi / 4),
                                  name=f'obj/{bowl.colour}_block_{k // 2}'))
    return tuple(blocks) + tuple(bowls)


def instruct(objects):
    """Return the sorting instruction naming both colours."""
    a, b = (o for o in objects if o.kind == 'bowl')
    return (f'Put each block in the bowl of its colour: the {a.colour} blocks in the {a.noun} '
            f'and the {b.colour} blocks in the {b.noun}.')


def sorted_count(layout, state) -> int:
    """Return how many blocks rest in the bowl of their colour."""
    bowls = {b.colour: b for b in layout.with_role('bowl')}
    return sum(in_bowl(state, blk, bowls[blk.colour]) for blk in layout.with_role('block'))


def success(layout, state, history):
    """Return whether all four blocks rest in their bowls, grippers released."""
    return sorted_count(layout, state) == 4 and released(state)


def progress(layout, state, history):
    """Stages: 0.2 per block in its bowl (0.8 for four, before release)."""
    return 0.2 * sorted_count(layout, state)


def unmet(layout, state, history):
    """Return the unmet conditions: each block in the bowl of its colour, released."""
    bowls = {b.colour: b for b in layout.with_role('bowl')}
    return lines(*(not_in_bowl(state, blk, bowls[blk.colour])
                   for blk in layout.with_role('block')), not_released(state))


TASK = register(TaskDef('sort_by_color', 'Long-Horizon', sample, instruct, success, progress,
                        unmet=unmet,
                        summary='four blocks into bowls of their colour'))

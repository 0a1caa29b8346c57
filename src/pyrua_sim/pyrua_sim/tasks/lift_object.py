"""Generalization: lift the named block 10 cm and hold it (the gripper stays closed)."""

from __future__ import annotations

import math

from . import register, stage_score, TaskDef
from .predicates import lift_m, LIFTED_M
from .reasons import lines
from ..layout import distinct_colours, make_object, Placer

LIFT_GOAL_M = 0.10


def sample(rng):
    """Place three blocks of different colours; the first is the one to lift."""
    placer = Placer(rng)
    colours = distinct_colours(rng, 3)
    roles = ('target', 'other', 'other')
    return tuple(
        make_object('block', colour, placer.place('block'), role,
                    rng.uniform(-math.pi / 4, math.pi / 4))
        for colour, role in zip(colours, roles, strict=True)
    )


def instruct(objects):
    """Return 'Lift the <block> 10 cm and hold it.'."""
    return f'Lift the {objects[0].noun} 10 cm and hold it.'


def _held(state):
    return not all(state.gripper_open.values())


def success(layout, state, history):
    """Return whether the block is >= 10 cm above its start while a gripper holds it closed."""
    (block,) = layout.with_role('target')
    return lift_m(state, block) >= LIFT_GOAL_M and _held(state)


def progress(layout, state, history):
    """Stages: lifted 2 cm 0.4, lifted 5 cm 0.7."""
    (block,) = layout.with_role('target')
    lift = lift_m(state, block)
    return stage_score((lift >= LIFTED_M, lift >= 0.05), (0.4, 0.7))


def unmet(layout, state, history):
    """Return the unmet conditions: lifted 10 cm, held."""
    (block,) = layout.with_role('target')
    lift = lift_m(state, block)
    return lines(
        '' if lift >= LIFT_GOAL_M else (f'{block.noun}: lifted {lift * 1000:.0f} mm vs '
                                        f'>= {LIFT_GOAL_M * 1000:.0f} mm'),
        '' if _held(state) else 'no gripper is closed on it vs held at the end')


TASK = register(TaskDef('lift_object', 'Generalization', sample, instruct, success, progress,
                        summary='lift the named object 10 cm and hold', unmet=unmet))

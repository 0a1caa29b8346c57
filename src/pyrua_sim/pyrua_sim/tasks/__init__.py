"""
The built-in task suite: one module per task, each registering itself in ``TASKS``.

A task is plain functions over plain data, so success checks and rewards are testable on
hand-placed states without a simulator:

- ``sample(rng) -> objects`` builds the task objects (``Placer`` raises ``PlacementFailed``
  to ask for a fresh attempt), ``instruct(objects) -> str`` the instruction;
- ``events(layout, state) -> set`` names what happened now (e.g. ``'pressed'``); the
  evaluator accumulates them into the episode's history (Memory tasks and buttons need it);
- ``progress(layout, state, history) -> float`` is the staged process reward of the current
  state, in [0, 1) (the evaluator keeps the highest stage reached: 'transition' mode);
- ``success(layout, state, history) -> bool`` is the RoboTwin-style check (§3.1);
- ``unmet(layout, state, history) -> tuple[str, ...]`` says, one line per condition, which
  part of that check fails now and by how much (``reasons``); empty when it succeeds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
from pyrua_primitives.naming import unknown_name

from ..layout import (
    check_seed_index,
    Layout,
    layout_rng,
    ObjectSpec,
    PlacementFailed,
    RANDOMIZED_FROM,
    sample_appearance,
    sample_distractors,
    UnreachableLayoutError,
)

DIMENSIONS = ('Generalization', 'Precision', 'Long-Horizon', 'Memory', 'Open')
LAYOUT_ATTEMPTS = 200


@dataclass(frozen=True, slots=True)
class SceneState:
    """
    Ground truth at one instant, as the evaluator reads it (never given to the agent).

    ``poses`` maps body names to (x, y, z, qw, qx, qy, qz); ``gripper_open`` tells per arm
    whether the gripper is released (open wider than the release width).
    """

    poses: Mapping[str, np.ndarray]
    gripper_width_m: Mapping[str, float]
    gripper_open: Mapping[str, bool]
    time_s: float = 0.0

    def __repr__(self) -> str:
        grip = ', '.join(f'{a}={w * 1000:.0f} mm' for a, w in self.gripper_width_m.items())
        return f'SceneState({len(self.poses)} bodies, grippers {grip}, t={self.time_s:.2f} s)'


EventsFn = Callable[[Layout, SceneState], frozenset]
ProgressFn = Callable[[Layout, SceneState, frozenset], float]
SuccessFn = Callable[[Layout, SceneState, frozenset], bool]
UnmetFn = Callable[[Layout, SceneState, frozenset], tuple[str, ...]]


def _no_events(layout: Layout, state: SceneState) -> frozenset:
    return frozenset()


def _no_reasons(layout: Layout, state: SceneState, history: frozenset) -> tuple[str, ...]:
    return ()


@dataclass(frozen=True, slots=True)
class TaskDef:
    """
    One task: name, capability dimension, sampler, instruction, success check and reward.

    Build it with ``register``; look it up with ``get_task`` or ``TASKS``.
    """

    name: str
    dimension: str
    sample: Callable[[np.random.Generator], tuple[ObjectSpec, ...]]
    instruct: Callable[[tuple[ObjectSpec, ...]], str]
    success: SuccessFn
    progress: ProgressFn
    events: EventsFn = field(default=_no_events)
    summary: str = ''
    unmet: UnmetFn = field(default=_no_reasons)

    @property
    def stages(self) -> str:
        """Return what the staged score counts (the ``progress`` docstring's first line)."""
        doc = (self.progress.__doc__ or '').strip()
        return doc.splitlines()[0] if doc else 'no stages stated'

    @property
    def randomizes(self) -> bool:
        """Return whether the index range's second half randomises appearance."""
        return self.dimension == 'Generalization'

    def sample_layout(self, seed: int, index: int) -> Layout:
        """
        Sample the layout ``(seed, index)`` of this task, deterministically.

        :param seed: 0..999.
        :param index: 0..49; for Generalization tasks 25..49 are the randomized half.
        :returns: the Layout (same arguments, identical layout).
        :raises ValueError: for a seed or index out of range.
        :raises UnreachableLayoutError: when no valid layout is found.
        """
        check_seed_index(seed, index)
        rng = layout_rng(self.name, int(seed), int(index))
        last = ''
        for _ in range(LAYOUT_ATTEMPTS):
            try:
                objects = tuple(self.sample(rng))
                instruction = self.instruct(objects)
                if self.randomizes and index >= RANDOMIZED_FROM:
                    appearance = sample_appearance(rng)
                    objects = objects + sample_distractors(rng, objects)
                    return Layout(self.name, int(seed), int(index), objects, instruction,
                                  appearance)
                return Layout(self.name, int(seed), int(index), objects, instruction)
            except PlacementFailed as exc:
                last = str(exc)
        raise UnreachableLayoutError(
            f'task {self.name!r} seed {seed} index {index}: no valid layout after '
            f'{LAYOUT_ATTEMPTS} attempts (last: {last}); try another seed or index'
        )

    def __repr__(self) -> str:
        return f'TaskDef({self.name!r}, {self.dimension})'


TASKS: dict[str, TaskDef] = {}


def register(task: TaskDef) -> TaskDef:
    """
    Add ``task`` to ``TASKS`` (called once by each task module).

    :raises ValueError: for a duplicate name or an unknown dimension.
    """
    if task.name in TASKS:
        raise ValueError(f'task {task.name!r} is registered twice; rename one')
    if task.dimension not in DIMENSIONS:
        raise ValueError(unknown_name('dimension', task.dimension, DIMENSIONS))
    TASKS[task.name] = task
    return task


def get_task(name: str) -> TaskDef:
    """
    Return the registered task ``name``.

    :raises ValueError: listing the valid names and the closest one.
    """
    if name not in TASKS:
        raise ValueError(unknown_name('task', name, TASKS))
    return TASKS[name]


def sample_layout(task: str, seed: int, index: int) -> Layout:
    """Sample layout ``(seed, index)`` of the task called ``task`` (see TaskDef)."""
    return get_task(task).sample_layout(seed, index)


@dataclass(frozen=True, slots=True)
class SuiteCase:
    """One cell of a suite: a task, a seed and a layout index."""

    task: str
    seed: int
    index: int


@dataclass(frozen=True, slots=True)
class Suite:
    """Tasks x seeds x layout indices, enumerated task-major."""

    tasks: tuple[str, ...]
    seeds: tuple[int, ...]
    indices: tuple[int, ...]

    def __post_init__(self) -> None:
        for name in self.tasks:
            get_task(name)
        for seed in self.seeds:
            for index in self.indices:
                check_seed_index(seed, index)

    def __iter__(self) -> Iterator[SuiteCase]:
        for task in self.tasks:
            for seed in self.seeds:
                for index in self.indices:
                    yield SuiteCase(task, seed, index)

    def __len__(self) -> int:
        return len(self.tasks) * len(self.seeds) * len(self.indices)

    def __repr__(self) -> str:
        return (
            f'Suite({len(self.tasks)} tasks x {len(self.seeds)} seeds x '
            f'{len(self.indices)} layouts = {len(self)} cases)'
        )


def make_suite(
    tasks: tuple[str, ...] | None = None,
    dimension: str | None = None,
    seeds: tuple[int, ...] = (0, 1, 2),
    layouts: int = 50,
) -> Suite:
    """
    Build a suite: the named tasks (or all of one dimension, or all) x seeds x layouts.

    :param tasks: task names; None takes every task (of ``dimension`` when given).
    :param dimension: a capability dimension, or None for all.
    :param seeds: the layout seeds.
    :param layouts: how many indices per seed (0..layouts-1).
    :raises ValueError: for an unknown task name.
    :raises ValueError: for an unknown dimension or an index range out of bounds.
    """
    if dimension is not None and dimension not in DIMENSIONS:
        raise ValueError(unknown_name('dimension', dimension, DIMENSIONS))
    if tasks is None:
        tasks = tuple(n for n, t in TASKS.items() if dimension in (None, t.dimension))
    return Suite(tuple(tasks), tuple(seeds), tuple(range(layouts)))


def stage_score(stages: tuple[bool, ...], scores: tuple[float, ...]) -> float:
    """Return the score of the latest stage whose condition holds (0 when none holds)."""
    best = 0.0
    for reached, score in zip(stages, scores, strict=True):
        if reached:
            best = score
    return best


# The task modules register themselves on import; keep this list in registry order.
from . import (  # noqa: E402,F401,I100,I101  isort: skip
    pick_place,
    lift_object,
    push_to_zone,
    stack_blocks,
    place_on_marker,
    insert_peg,
    stack_three,
    sort_by_color,
    swap_blocks,
    restore_block,
    handover,
    press_button,
)

__all__ = [
    'DIMENSIONS',
    'SceneState',
    'Suite',
    'SuiteCase',
    'TASKS',
    'TaskDef',
    'UnreachableLayoutError',
    'get_task',
    'make_suite',
    'register',
    'sample_layout',
]

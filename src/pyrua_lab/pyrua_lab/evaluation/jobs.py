"""
A spec's episode list: task entries resolved, then tasks x seeds x layouts x interfaces.

Each episode is an ``EpisodeJob``: plain, picklable data that a worker process (local pool or
Ray) turns into one episode. Its ``episode_id`` is stable (same spec, same ids), which is
what resuming a run keys on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
import fnmatch
import re
from typing import Any

from pyrua_agent.budgets import BudgetConfig
from pyrua_primitives.naming import unknown_name

from .spec import EvalSpec, InterfaceSpec

BUILTIN_SUITE = 'builtin'
GLOB_CHARS = '*?['


@dataclass(frozen=True, kw_only=True)
class EpisodeJob:
    """
    One episode to run: where, with which interface, under which settings.

    :param episode_id: stable id, ``<interface>.<task>.s<seed>.l<layout>`` (file-safe).
    :param interface: the interface.
    :param task: task name (built-in, or ``'<suite>/<index>'``).
    :param seed: layout seed.
    :param layout: layout index.
    :param dimension: the task's capability dimension (None for benchmark tasks).
    :param suite: ``'builtin'`` or the benchmark suite.
    :param half: ``'standard'`` or ``'randomized'`` for Generalization tasks, else None.
    :param attempt: 1, or 2 for the one retry after an infrastructure error.
    """

    episode_id: str
    interface: InterfaceSpec
    task: str
    seed: int
    layout: int
    dimension: str | None
    suite: str
    half: str | None
    budgets: BudgetConfig
    cell_timeout_s: float | None
    perception: str
    allow_privileged: bool
    sandbox: str
    success_guard: bool
    prices: str | None
    spec_name: str
    run_root: str = ''
    labels: Mapping[str, Any] = field(default_factory=dict)
    attempt: int = 1

    def retry(self) -> EpisodeJob:
        """Return the same episode as its second (last) attempt."""
        return replace(self, attempt=self.attempt + 1)

    def describe(self) -> dict[str, Any]:
        """Return the keys every record of this episode carries besides the result's."""
        return {'episode_id': self.episode_id, 'interface': self.interface.name,
                'planner': self.interface.planner, 'model': self.interface.model,
                'cost_model': self.interface.cost_model, 'prompt': dict(self.interface.prompt),
                'perception': self.perception,
                'dimension': self.dimension,
                'suite': self.suite, 'half': self.half, 'attempt': self.attempt,
                'spec': self.spec_name, 'labels': dict(self.labels)}

    def __repr__(self) -> str:
        return f'EpisodeJob({self.episode_id}, attempt {self.attempt})'


def episode_id(interface: str, task: str, seed: int, layout: int) -> str:
    """Return the stable, file-safe id of one episode."""
    safe_task = re.sub(r'[^A-Za-z0-9_-]+', '~', task)
    return f'{interface}.{safe_task}.s{seed}.l{layout}'


def resolve_tasks(entries: tuple[str, ...]) -> tuple[str, ...]:
    """
    Resolve task entries to task names, in entry order, each once.

    :param entries: built-in task names, dimension names (all its tasks), globs over the
        built-in names (``'stack_*'``), benchmark tasks (``'libero_spatial/3'``) and suites
        (``'libero_spatial/*'``; listing a suite needs the benchmark's extra).
    :raises ValueError: for an entry that names nothing, listing what is valid.
    """
    from pyrua_sim.tasks import DIMENSIONS, TASKS

    names: list[str] = []
    for entry in entries:
        if entry in TASKS:
            found = [entry]
        elif entry in DIMENSIONS:
            found = [n for n, t in TASKS.items() if t.dimension == entry]
        elif '/' in entry:
            found = _benchmark_entry(entry)
        elif any(c in entry for c in GLOB_CHARS):
            found = [n for n in TASKS if fnmatch.fnmatchcase(n, entry)]
            if not found:
                raise ValueError(f'task pattern {entry!r} matches no built-in task; the tasks '
                                 f'are {", ".join(TASKS)}')
        else:
            raise ValueError(unknown_name('task or dimension', entry, [*TASKS, *DIMENSIONS]))
        names.extend(n for n in found if n not in names)
    return tuple(names)


def _benchmark_entry(entry: str) -> list[str]:
    from pyrua_sim.benchmarks.registry import split_task, suite_tasks

    suite, _, index = entry.partition('/')
    if any(c in index for c in GLOB_CHARS):
        found = [t for t in suite_tasks(suite) if fnmatch.fnmatchcase(t, entry)]
        if not found:
            raise ValueError(f'task pattern {entry!r} matches no task of suite {suite!r}')
        return found
    split_task(entry)  # refuses an unknown suite or a bad index
    return [entry]


def task_facts(task: str, layout: int) -> tuple[str | None, str, str | None]:
    """Return (dimension, suite, Generalization half) of one episode."""
    from pyrua_sim.layout import RANDOMIZED_FROM
    from pyrua_sim.tasks import TASKS

    if task not in TASKS:
        return None, task.partition('/')[0], None
    definition = TASKS[task]
    half = None
    if definition.randomizes:
        half = 'randomized' if layout >= RANDOMIZED_FROM else 'standard'
    return definition.dimension, BUILTIN_SUITE, half


def expand(spec: EvalSpec, run_root: str = '') -> list[EpisodeJob]:
    """
    Return the spec's episodes: tasks x seeds x layouts x interfaces, task-major.

    Interfaces are innermost so that a partial run has comparable counts per interface.

    :param spec: the spec.
    :param run_root: folder under which each episode's recording goes.
    :raises ValueError: for an unknown task entry or a seed/layout out of range.
    """
    from pyrua_sim.layout import check_seed_index

    tasks = resolve_tasks(spec.tasks)
    jobs = []
    for task in tasks:
        for seed in spec.seeds:
            for layout in spec.layouts:
                if '/' not in task:
                    check_seed_index(seed, layout)
                dimension, suite, half = task_facts(task, layout)
                for interface in spec.interfaces:
                    jobs.append(EpisodeJob(
                        episode_id=episode_id(interface.name, task, seed, layout),
                        interface=interface, task=task, seed=seed, layout=layout,
                        dimension=dimension, suite=suite, half=half, budgets=spec.budgets,
                        cell_timeout_s=spec.cell_timeout_s, perception=spec.perception,
                        allow_privileged=spec.allow_privileged,
                        sandbox=spec.sandbox, success_guard=spec.success_guard,
                        prices=spec.prices, spec_name=spec.name, run_root=run_root,
                        labels=spec.labels))
    return jobs

"""
The one registry of benchmark task sources: suite name -> adapter, and task-name parsing.

A benchmark task is ``'<suite>/<task index>'`` (``'libero_goal/2'``); the layout index of
``pyrua run --layout`` is the benchmark's init state. ``pyrua tasks`` lists the suites here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pyrua_primitives.naming import unknown_name


@dataclass(frozen=True, slots=True)
class BenchmarkSource:
    """One benchmark adapter: its suites, how to load a task, the extra it needs, task counts."""

    name: str
    suites: Callable[[], tuple[str, ...]]
    load: Callable[..., object]
    extra: str
    task_count: Callable[[str], int]


def _libero_suites() -> tuple[str, ...]:
    from .libero.suites import ALL_SUITES

    return ALL_SUITES


def _libero_load(*args, **kwargs):
    from .libero import load

    return load(*args, **kwargs)


def _libero_task_count(suite: str) -> int:
    from .libero.suites import task_count

    return task_count(suite)


SOURCES: dict[str, BenchmarkSource] = {
    'libero': BenchmarkSource('libero', _libero_suites, _libero_load, 'libero',
                              _libero_task_count),
}


def _source_of(suite: str) -> BenchmarkSource | None:
    for source in SOURCES.values():
        if suite in source.suites():
            return source
    return None


def is_benchmark_task(task: str) -> bool:
    """Return True when ``task`` names a benchmark task (``'<suite>/<index>'``)."""
    return isinstance(task, str) and '/' in task


def benchmark_suites() -> dict[str, tuple[str, ...]]:
    """Return benchmark name -> its suite names (no benchmark package is imported)."""
    return {name: source.suites() for name, source in SOURCES.items()}


def split_task(task: str) -> tuple[BenchmarkSource, str, int]:
    """
    Split ``'<suite>/<index>'`` into its adapter, suite and task index.

    :raises ValueError: for an unknown suite (with the valid ones) or a non-integer index.
    """
    suite, _, index = task.partition('/')
    source = _source_of(suite)
    if source is None:
        known = [s for src in SOURCES.values() for s in src.suites()]
        raise ValueError(unknown_name('benchmark suite', suite, known))
    if not index.isdigit():
        raise ValueError(f'task {task!r}: {index!r} is not a task index; write e.g. '
                         f'{suite}/0 (pyrua tasks lists the suites)')
    return source, suite, int(index)


def load(task: str, layout: int = 0, **options) -> object:
    """
    Load benchmark task ``task`` at init state ``layout``: a world like ``load_twin``'s.

    :param task: ``'<suite>/<task index>'``, e.g. ``'libero_spatial/3'``.
    :param layout: the benchmark's init state index.
    :param options: adapter settings (e.g. ``config``).
    :returns: the adapter's world (``station``, ``evaluator``, ``layout``, ``instruction``,
        ``close()``).
    :raises ValueError: for an unknown suite or index.
    :raises MissingDependency: when the benchmark's extra is not installed.
    """
    source, suite, index = split_task(task)
    return source.load(suite, index, layout, **options)


def suite_tasks(suite: str) -> tuple[str, ...]:
    """
    Return every task of benchmark suite ``suite``: ``('<suite>/0', '<suite>/1', ...)``.

    :raises ValueError: for an unknown suite, listing the valid ones.
    :raises MissingDependency: when the benchmark's extra is not installed.
    """
    source, suite, _ = split_task(f'{suite}/0')
    return tuple(f'{suite}/{index}' for index in range(source.task_count(suite)))

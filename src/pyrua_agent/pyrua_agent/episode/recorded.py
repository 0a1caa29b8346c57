"""
``run_recorded_episode``: ``run_episode`` with the recorder attached.

The recorder sees the start, every cell, the end, and is closed. ``run_episode_spec`` calls
it when the episode has an observer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .loop import EpisodeResult, EpisodeWorld, run_episode
from ..planners.base import Cell, Planner
from ..recording.recorder import Recorder
from ..runtime import CellResult


def run_recorded_episode(world: EpisodeWorld, planner: Planner, recorder: Recorder, *,
                         config: Mapping[str, Any],
                         on_cell: Callable[[Cell, CellResult], None] | None = None,
                         **run_kwargs: Any) -> EpisodeResult:
    """
    Run one episode with everything recorded, then close the recording.

    :param world: the episode's world.
    :param planner: the planner (give LLM planners a ``RecordedChatClient``).
    :param recorder: the episode's recorder; closed on return, also after an error.
    :param config: the resolved configuration stored with the episode (no secrets).
    :param on_cell: another per-cell hook (progress display), called after recording.
    :param run_kwargs: passed to ``run_episode`` (budgets, cell_timeout_s, ...).
    :returns: the episode record.
    """
    def record_cell(cell: Cell, result: CellResult) -> None:
        recorder.cell(cell, result)
        if on_cell is not None:
            on_cell(cell, result)

    try:
        recorder.episode_started(config, world.card, seed=world.seed, layout=world.layout,
                                 planner=planner.name)
        result = run_episode(world, planner, on_cell=record_cell, **run_kwargs)
        recorder.episode_ended(result)
        return result
    finally:
        recorder.close()

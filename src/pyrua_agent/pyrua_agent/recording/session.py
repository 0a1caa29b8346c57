"""
Wiring a recorder into an episode: the episode loop hooks and the model client.

``run_recorded_episode`` is ``run_episode`` with the recorder attached (start, every cell,
end, close); ``RecordedChatClient`` wraps a ``ChatClient`` so that each counted model call
reaches ``Recorder.llm_call`` with the history it was sent and the reply, without the
planner knowing about recording.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .recorder import Recorder
from ..episode import EpisodeResult, EpisodeWorld, run_episode
from ..llm.client import ChatClient, ChatReply
from ..planners.base import Cell, Planner
from ..runtime import CellResult


class RecordedChatClient:
    """
    A ``ChatClient`` whose every answered call is also recorded.

    Attributes other than ``complete`` (``ledger``, ``config``, ``close``, ...) are the
    wrapped client's.

    :param client: the client the planner would use.
    :param recorder: where each call goes.
    """

    def __init__(self, client: ChatClient, recorder: Recorder) -> None:
        self._client = client
        self._recorder = recorder

    def __repr__(self) -> str:
        return f'RecordedChatClient({self._client!r} -> {self._recorder.run_dir})'

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def complete(self, messages: Sequence[Mapping[str, Any]],
                 tools: Sequence[Mapping[str, Any]] | None = None,
                 tool_choice: str | None = None) -> ChatReply:
        """Make the call with the wrapped client, record it, and return the reply."""
        reply = self._client.complete(messages, tools, tool_choice)
        self._recorder.llm_call(reply.record, messages, reply)
        return reply


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

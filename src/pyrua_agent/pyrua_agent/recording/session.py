"""
Wiring a recorder into the model client (the episode side is ``episode.recorded``).

``RecordedChatClient`` wraps a ``ChatClient`` so that each counted model call
reaches ``Recorder.llm_call`` with the history it was sent and the reply, without the
planner knowing about recording.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .recorder import Recorder
from ..llm.client import ChatClient, ChatReply


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
                 tool_choice: Any = None, prefill: str | None = None, *,
                 sampling: tuple[float, int] | None = None) -> ChatReply:
        """Make the call with the wrapped client, record it, and return the reply."""
        reply = self._client.complete(messages, tools, tool_choice, prefill, sampling=sampling)
        self._recorder.llm_call(reply.record, messages, reply)
        return reply

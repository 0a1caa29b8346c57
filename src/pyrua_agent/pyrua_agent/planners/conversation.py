"""
The conversation both LLM planners share: history, counted calls, tool calls run as cells.

One model call per ``next_step`` at most. Each tool call of a reply becomes one cell, run in
the order the model gave them; every call is answered (a cell's result, or the parse error
of a malformed call, which runs no cell) before the next model call. The first call of an
episode must act (``EndpointConfig.force_first_action``): each interface says how
(``first_action``: a ``tool_choice``, or the opening of a reply to continue); with
``force_every_call`` every call offering tools sends that ``tool_choice``. A reply without
a tool call is answered once with a correction message (``correction``: what to send to act,
and that a second text-only reply ends the episode; while no cell has run, that nothing on
the robot has changed); a text-only reply right after it ends the episode (``Finish``): the
loop reports ``solved`` if the task succeeded, else ``gave_up``. A call whose code and
answer are exactly the previous call's (a cell, or a malformed call and its error) gets
``REPEATED`` after its answer; two calls alternated (A, B, A, B) get ``ALTERNATED``; the next
call is then sampled at ``EndpointConfig.repeat_temperature`` where that is set, and, where
``EndpointConfig.bar_repeated_looks`` is set, may not call a look that looped
(``looks_of``): its ``tool_choice`` is ``allowed_tools`` naming the other tools.
Budgets are charged before each call and the context is checked after it, so retries and
infrastructure errors (handled inside ``ChatClient``) never count as calls.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
import logging
import re
from typing import Any

from .base import Cell, Finish, TaskCard
from ..accounting import CallRecord, Ledger, PriceTable
from ..budgets import Budgets
from ..llm import (
    ChatClient,
    ChatReply,
    EndpointConfig,
    ImageAttachment,
    parse_tool_call,
    ParseResult,
    system_message,
    tool_result_messages,
    ToolOutput,
    user_message,
)
from ..llm.messages import attach_image
from ..prompt import PromptVariant, task_card_message
from ..runtime import CellResult, ImageObservation

_LOG = logging.getLogger(__name__)
NO_CELL_YET = ('No cell has run yet in this episode: nothing on the robot has changed since '
               'the start, so no part of the task is done. ')
REPEATED = ('\n\nYour call and this result are word for word those of your previous call: '
            'nothing new happened, and sending it again gives this result again. Do the next '
            'step of the task with the result above, or, if it was refused, change what the '
            'error names (use the value it gives).')
"""Appended to a call's answer when the call and its answer equal the previous call's (a
cell's code and output, or a malformed call's arguments and error). Under greedy decoding
a small model otherwise repeats a refused call (or a measurement) word for word until its
budget ends."""
ALTERNATED = ('\n\nYour last four calls alternate between two calls, each word for word with '
              'the same result as before: nothing new happens, and going on alternating gives '
              'these results again. Do the next step of the task with the results you have, '
              'or change what an error names (use the value it gives).')
"""Appended when a call and its answer equal those of two calls ago, and the call between
equals the one before it (A, B, A, B): a loop that ``REPEATED`` does not see."""
_CELL_NAME = re.compile(r'<cell \d+>')  # tracebacks name the cell; repeats differ only there
OnCall = Callable[[CallRecord], None]
WrapClient = Callable[[ChatClient], Any]


def image_attachments(images: Sequence[ImageObservation], *, detail: str = 'auto',
                      fmt: str = 'png') -> tuple[ImageAttachment, ...]:
    """Return a cell's ``robo.show`` images as attachments labelled like their placeholders."""
    return tuple(
        attach_image(f'image {obs.index}: {obs.camera}' + (f' — {obs.note}' if obs.note else ''),
                     obs.pixels, detail=detail, fmt=fmt)
        for obs in images)


class ConversationPlanner(ABC):
    """
    Base of the code agent and the tool-calling baseline.

    Subclasses give the tools, the system prompt, the cell of a valid call and the answer to
    a call from its cell's result.

    :param endpoint: the OpenAI-compatible endpoint and model.
    :param prices: the price table (the packaged one by default).
    :param on_call: called with each counted call's record (e.g. to print
        ``planner.ledger.progress()`` for a person watching).
    :param image_detail: OpenAI image detail of every image sent.
    :param image_format: ``'png'`` or ``'jpeg'``.
    :param wrap_client: wraps each episode's ``ChatClient`` (the recorder's
        ``RecordedChatClient`` records every call this way).
    :param prompt: which optional prompt parts to send (all by default; the prompt ablation
        drops one).
    """

    name = 'conversation'

    def __init__(self, endpoint: EndpointConfig, *, prices: PriceTable | None = None,
                 on_call: OnCall | None = None, image_detail: str = 'auto',
                 image_format: str = 'png', wrap_client: WrapClient | None = None,
                 prompt: PromptVariant | None = None) -> None:
        self.endpoint = endpoint
        self.prompt = prompt if prompt is not None else PromptVariant()
        self.wrap_client = wrap_client
        self.prices = prices if prices is not None else PriceTable.load()
        self.on_call = on_call
        self.image_detail = image_detail
        self.image_format = image_format
        self.ledger = Ledger()
        self.messages: list[dict[str, Any]] = []
        self.tools: list[dict[str, Any]] = []
        self._client: ChatClient | None = None
        self._budgets: Budgets | None = None
        self._queue: deque[ParseResult] = deque()
        self._answers: list[ToolOutput] = []
        self._corrected = False
        self._calls = 0
        self._cells_run = 0
        self._recent: deque[tuple] = deque(maxlen=3)  # the last calls answered, as keys
        self._repeated = False
        self._looped: frozenset[str] = frozenset()  # tool names of the calls that looped

    def __repr__(self) -> str:
        return (f'{type(self).__name__}({self.endpoint.model!r} at {self.endpoint.base_url}, '
                f'{len(self.tools)} tools, {len(self.messages)} messages, '
                f'{self.ledger.totals().llm_calls} calls)')

    # Interface of the subclasses.
    @abstractmethod
    def build_tools(self, card: TaskCard) -> list[dict[str, Any]]:
        """Return the function tools offered in every call of this episode."""

    @abstractmethod
    def build_system_prompt(self, tools: Sequence[Mapping[str, Any]], card: TaskCard) -> str:
        """Return the system prompt for the given tools and the card's station facts."""

    @abstractmethod
    def cell_for(self, call: ParseResult) -> Cell:
        """Return the cell that runs one valid tool call."""

    @abstractmethod
    def answer(self, call: ParseResult, result: CellResult) -> ToolOutput:
        """Return the tool result the model gets for ``call``, from its cell's result."""

    @abstractmethod
    def correction(self) -> str:
        """Return the message that answers a reply without a tool call (sent once)."""

    @abstractmethod
    def first_action(self) -> tuple[Any, str | None]:
        """Return the ``tool_choice`` and the reply prefill that make the first call act."""

    def first_ask(self) -> str:
        """Return the task card's last paragraph, what to reply with ('' by default: none)."""
        return ''

    def looks_of(self, names: frozenset[str]) -> frozenset[str]:
        """Return which of these tool names only observe (barred for a call after a loop)."""
        return frozenset()

    def calls_of(self, reply: ChatReply) -> list[ParseResult]:
        """Return the reply's calls, checked against the offered tools, in order."""
        return [parse_tool_call(c.call_id, c.name, c.arguments, self.tools)
                for c in reply.tool_calls]

    def answer_messages(self, answers: Sequence[ToolOutput]) -> list[dict[str, Any]]:
        """Return the messages that answer one reply's calls (tool messages by default)."""
        return tool_result_messages(
            answers, images_in_tool_messages=self.endpoint.images_in_tool_messages)

    # The Planner protocol.
    def begin(self, card: TaskCard, budgets: Budgets) -> None:
        """Start a new conversation (and a new ledger) for the episode of ``card``."""
        self.close()
        self.ledger = Ledger()
        client = ChatClient(self.endpoint, ledger=self.ledger, prices=self.prices)
        self._client = self.wrap_client(client) if self.wrap_client is not None else client
        self._budgets = budgets
        self.tools, self.messages = self.opening(card)
        self._queue.clear()
        self._answers.clear()
        self._corrected = False
        self._calls = 0
        self._cells_run = 0
        self._recent.clear()
        self._repeated = False
        self._looped = frozenset()

    def opening(self, card: TaskCard) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Return the tools and the first messages (system prompt, task card) of an episode."""
        tools = self.build_tools(card)
        return tools, [
            system_message(self.build_system_prompt(tools, card)),
            task_card_message(card, detail=self.image_detail, fmt=self.image_format,
                              ask=self.first_ask()),
        ]

    def next_step(self) -> Cell | Finish:
        """
        Return the cell of the next pending tool call, calling the model when none is left.

        :raises EpisodeEnd: ``call_budget``, ``wall_clock`` or ``context_overflow``.
        :raises LLMError: when the endpoint fails for good (the loop ends with infra_error).
        """
        if self._client is None or self._budgets is None:
            raise RuntimeError(f'{self.name} planner: next_step() before begin(); the episode '
                               'loop calls begin(card, budgets) first')
        while True:
            while self._queue and not self._queue[0].valid:
                call = self._queue.popleft()
                _LOG.info('answering malformed tool call %s: %s', call.call_id, call.reason)
                output = ToolOutput(call.call_id, f'Error: {call.reason}')
                key = ('malformed', call.name, repr(dict(call.arguments)), call.reason)
                self._answers.append(self._noting_repeats(key, output))
            if self._queue:
                return self.cell_for(self._queue[0])
            if self._answers:
                self.messages.extend(self.answer_messages(self._answers))
                self._answers.clear()
            reply = self._call()
            calls = self.calls_of(reply)
            if not calls:
                text = (reply.content or '').strip()
                if not self._corrected:
                    self._corrected = True
                    _LOG.info('reply without a tool call (%d chars): sending the correction',
                              len(text))
                    self.messages.append(reply.message())
                    self.messages.append(user_message(self._correction_for(reply)))
                    continue
                return Finish(text or f'the model answered without a tool call '
                                      f'(finish_reason={reply.finish_reason!r})')
            self._corrected = False
            self.messages.append(reply.message())
            self._queue.extend(calls)

    def observe(self, result: CellResult) -> None:
        """Answer the tool call whose cell just ran."""
        if not self._queue:
            raise RuntimeError(f'{self.name} planner: observe() without a pending tool call')
        call = self._queue.popleft()
        self._cells_run += 1
        output = self.answer(call, result)
        key = ('cell', call.name, self.cell_for(call).code,
               _CELL_NAME.sub('<cell>', output.text))
        self._answers.append(self._noting_repeats(key, output))

    def _noting_repeats(self, key: tuple, output: ToolOutput) -> ToolOutput:
        """Return ``output``, told ``REPEATED`` or ``ALTERNATED`` where ``key`` loops."""
        recent = self._recent
        note = ''
        if recent and key == recent[-1]:
            note, looped = REPEATED, {key[1]}
        elif len(recent) == 3 and key == recent[1] and recent[2] == recent[0]:
            note, looped = ALTERNATED, {key[1], recent[2][1]}
        recent.append(key)
        if not note:
            return output
        _LOG.info('call %s %s', output.call_id,
                  'repeats the previous call' if note is REPEATED else 'alternates two calls')
        self._repeated = True
        self._looped = frozenset(looped)
        return replace(output, text=output.text + note)

    def _correction_for(self, reply: ChatReply) -> str:
        if reply.finish_reason != 'length':
            if self._cells_run == 0:
                return NO_CELL_YET + self.correction()
            return self.correction()
        limit = self.endpoint.max_output_tokens
        bound = f' (max_output_tokens={limit})' if limit is not None else ''
        return (f'Your reply was cut off at the output limit{bound} after '
                f'{reply.record.output_tokens} tokens, ' + self.cut_off_advice())

    def cut_off_advice(self) -> str:
        """Say, after 'cut off at the output limit', that nothing ran and how to reply."""
        return ('before any complete tool call: nothing ran. Send a shorter call: one step '
                'of the task per cell. ' + self.correction())

    def close(self) -> None:
        """Close the HTTP connections of the episode's client."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def _call(self) -> ChatReply:
        self._budgets.charge_call()
        choice, prefill = ('auto' if self.tools else None), None
        if self._calls == 0 and self.endpoint.force_first_action:
            choice, prefill = self.first_action()
        elif self.tools and self.endpoint.force_every_call:
            choice = self.first_action()[0]
        self._calls += 1
        extra = {} if prefill is None else {'prefill': prefill}
        if self._repeated and self.endpoint.repeat_temperature is not None:
            extra['sampling'] = (self.endpoint.repeat_temperature, self._calls)
        if self._looped and self.endpoint.bar_repeated_looks:
            choice = self._barring(self.looks_of(self._looped), choice)
        self._repeated = False
        self._looped = frozenset()
        reply = self._client.complete(self.messages, self.tools, tool_choice=choice, **extra)
        if self.on_call is not None:
            self.on_call(reply.record)
        self._budgets.check_context(reply.record.input_tokens)
        return reply

    def _barring(self, looks: frozenset[str], choice: Any) -> Any:
        """Return ``choice`` narrowed to the offered tools but ``looks`` (same mode)."""
        allowed = [tool['function']['name'] for tool in self.tools
                   if tool['function']['name'] not in looks]
        if not looks or not allowed or choice not in ('auto', 'required'):
            return choice
        _LOG.info('next call may not call %s (it looped)', ', '.join(sorted(looks)))
        return {'type': 'allowed_tools', 'allowed_tools': {
            'mode': choice,
            'tools': [{'type': 'function', 'function': {'name': name}} for name in allowed]}}

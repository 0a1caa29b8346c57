"""
The code agent: the model writes Python cells, as ``python(code)`` tool calls or as fenced blocks.

Two reply forms (``EndpointConfig.code_form``), the same cells and budgets:

- ``'tool'``: one tool, ``python(code)``. The first call names it in ``tool_choice`` (it must
  act); later calls are ``'auto'``: the prompt asks for a ``python`` call in every turn, and a
  plain-text answer ends the episode (``gave_up`` unless the task succeeded).
- ``'fence'``: no tools; each ```` ```python ```` block of the reply is a cell, and the
  results come back in one user message. Small models write valid Python in a block where
  their JSON breaks. The first reply is prefilled with the block's opening where the
  endpoint continues a reply (``continues_final_message``, pyrua_local and vLLM).

Several calls (or blocks) in one reply run as cells in the order given, each answered with its
own result. A malformed call (bad JSON, unknown tool, missing ``code``) is answered with the
parse error: it counts as a model call and runs no cell. A cell's result is its output text
with image placeholders, and its ``robo.show`` images in call order (in the tool message where
the endpoint allows it, else in one user message right after the tool messages).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pyrua_local.tool_text import python_blocks

from .base import Cell, TaskCard
from .conversation import ConversationPlanner, image_attachments, OnCall, WrapClient
from ..accounting import PriceTable
from ..llm import ChatReply, EndpointConfig, ParseResult, python_tool, ToolOutput, user_message
from ..prompt import code_api_reference, PromptVariant
from ..runtime import CellResult

PYTHON_TOOL_DESCRIPTION = (
    'Run one Python cell in the persistent robot session. Returns what the cell printed '
    '(the last expression is not shown), its traceback if it raised, and the camera images '
    'it asked for with robo.show, in order.')
EMPTY_OUTPUT = '[the cell printed nothing]'
CORRECTION = (
    'Your reply had no python tool call, so nothing ran on the robot. To act, call the '
    'python tool with your next cell, e.g. python(code="print(robo.pose(\'left\'))"). If '
    'the task is finished, reply with text only once more: that ends the episode.')
FENCE_OPENING = '```python\n'
"""The start of a fenced cell: what a forced first reply is prefilled with."""
FENCE_CORRECTION = (
    'Your reply had no ```python block, so nothing ran on the robot. To act, reply with '
    'your next cell in one ```python block. If the task is finished, reply with text only '
    'once more: that ends the episode.')
FENCE_FIRST_ASK = ('Reply with your first cell: one ```python block of code that does the steps '
                   'of this task, as in the worked example.')
"""The task card's last words in the fence form. Without them the 1.5B model answered the
card (which ends with camera labels) with ``# No changes needed for the robot state`` and
went on writing comment-only cells; with them its first cell did the task's steps."""
FENCE_FIRST_ASK_ALONE = ('Reply with your first cell: one ```python block of code that does the '
                         'steps of this task.')
"""``FENCE_FIRST_ASK`` for a prompt without the worked example (``PromptVariant``)."""
FENCE_NEXT_ASK = ('Reply with your next cell in one ```python block, or in plain text only if '
                  'the task is done.')
"""The last words of every message of cell outputs in the fence form."""
NO_STATEMENTS = ('[the cell held only comments: no statement ran and nothing on the robot '
                 "changed. Write the step as Python statements, e.g. print(robo.pose('left'))]")
"""A cell's result when its code is comments only (the 1.5B model wrote such cells)."""
FENCE_CUT_OFF = (
    'before its ```python block closed: nothing ran. Reply with a shorter cell in one '
    '```python block: code only, no comments, one step of the task.')


class CodeAgentPlanner(ConversationPlanner):
    """
    An LLM that writes cells against ``robo`` over any OpenAI-compatible endpoint.

    :param endpoint: the endpoint and model.
    :param primitives: the episode's primitives (``robo.<name>``), for the API reference.
    :param prices: the price table (the packaged one by default).
    :param on_call: called with each counted call's record.
    :param image_detail: OpenAI image detail of every image sent.
    :param image_format: ``'png'`` or ``'jpeg'``.
    :param wrap_client: wraps each episode's ``ChatClient`` (recording).
    :param prompt: which optional prompt parts to send (``PromptVariant``; all by default).
    """

    name = 'code'

    def __init__(self, endpoint: EndpointConfig,
                 primitives: Mapping[str, Callable[..., Any]], *,
                 prices: PriceTable | None = None, on_call: OnCall | None = None,
                 image_detail: str = 'auto', image_format: str = 'png',
                 wrap_client: WrapClient | None = None,
                 prompt: PromptVariant | None = None) -> None:
        super().__init__(endpoint, prices=prices, on_call=on_call, image_detail=image_detail,
                         image_format=image_format, wrap_client=wrap_client, prompt=prompt)
        self.api_reference = code_api_reference(primitives)

    @property
    def form(self) -> str:
        """The reply form in effect: ``'tool'`` or ``'fence'``."""
        return self.endpoint.code_form

    def build_tools(self, card: TaskCard) -> list[dict[str, Any]]:
        """Return the single ``python`` tool (none in the fence form)."""
        return [] if self.form == 'fence' else [python_tool(PYTHON_TOOL_DESCRIPTION)]

    def build_system_prompt(self, tools: Sequence[Mapping[str, Any]], card: TaskCard) -> str:
        """Return the code interface's system prompt with the card's station facts."""
        from . import interface_prompt  # the registry holds each interface's prompt files

        return interface_prompt(self.name, self.api_reference, card.station_facts,
                                form=self.form, worked_example=self.prompt.worked_example)

    def first_action(self) -> tuple[Any, str | None]:
        """Name the ``python`` tool, or open the fenced block where the endpoint allows."""
        if self.form == 'fence':
            return None, FENCE_OPENING if self.endpoint.continues_final_message else None
        return {'type': 'function', 'function': {'name': 'python'}}, None

    def first_ask(self) -> str:
        """In the fence form, end the task card with what to reply: a first cell."""
        if self.form != 'fence' or not self.prompt.asks:
            return ''
        return FENCE_FIRST_ASK if self.prompt.worked_example else FENCE_FIRST_ASK_ALONE

    def calls_of(self, reply: ChatReply) -> list[ParseResult]:
        """Return the reply's cells: its tool calls, or in the fence form its blocks."""
        if self.form != 'fence':
            return super().calls_of(reply)
        cut = reply.finish_reason == 'length'  # a last block cut mid-way does not run
        blocks = [code for code in python_blocks(reply.content or '', closed_only=cut)
                  if code.strip()]
        return [ParseResult(True, '', f'cell_{self._calls}_{i}', 'python', {'code': code})
                for i, code in enumerate(blocks)]

    def answer_messages(self, answers: Sequence[ToolOutput]) -> list[dict[str, Any]]:
        """Answer tool calls with tool messages; blocks with one user message of outputs."""
        if self.form != 'fence':
            return super().answer_messages(answers)
        texts, images = [], []
        for i, output in enumerate(answers, 1):
            head = 'Output of your cell:' if len(answers) == 1 else (
                f'Output of cell {i} of {len(answers)}:')
            texts.append(f'{head}\n{output.text}')
            images.extend(output.images)
        return [user_message('\n\n'.join(texts), images,
                             closing=FENCE_NEXT_ASK if self.prompt.asks else '')]

    def cell_for(self, call: ParseResult) -> Cell:
        """Return the model's code as the cell, labelled with the call id."""
        return Cell(code=call.arguments['code'], label=call.call_id)

    def correction(self) -> str:
        """Say that a reply without a ``python`` call (or block) ran nothing, and how to act."""
        return FENCE_CORRECTION if self.form == 'fence' else CORRECTION

    def cut_off_advice(self) -> str:
        """Say that a cut reply ran nothing; in the fence form, ask for code only."""
        return FENCE_CUT_OFF if self.form == 'fence' else super().cut_off_advice()

    def answer(self, call: ParseResult, result: CellResult) -> ToolOutput:
        """Return the cell's output text and its images."""
        images = image_attachments(result.images, detail=self.image_detail,
                                   fmt=self.image_format)
        text = result.output or (NO_STATEMENTS if _comments_only(call.arguments['code'])
                                 else EMPTY_OUTPUT)
        return ToolOutput(call.call_id, text, images)


def _comments_only(code: str) -> bool:
    """Return True for code that parses to no statement (blank lines and comments)."""
    try:
        return not ast.parse(code).body
    except SyntaxError:
        return False

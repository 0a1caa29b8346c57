"""
The code agent: the model writes Python cells through one tool, ``python(code)``.

``tool_choice`` is ``'auto'``, not ``'required'``: the prompt asks for a ``python`` call in
every turn, and a plain-text answer ends the episode (``gave_up`` unless the task succeeded).
Several ``python`` calls in one reply run as cells in the order given, each answered with its
own result. A malformed call (bad JSON, unknown tool, missing ``code``) is answered with the
parse error: it counts as a model call and runs no cell. A cell's result is its output text
with image placeholders, and its ``robo.show`` images in call order (in the tool message where
the endpoint allows it, else in one user message right after the tool messages).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .base import Cell, TaskCard
from .conversation import ConversationPlanner, image_attachments, OnCall, WrapClient
from ..accounting import PriceTable
from ..llm import EndpointConfig, ParseResult, python_tool, ToolOutput
from ..prompt import code_api_reference
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
    """

    name = 'code'

    def __init__(self, endpoint: EndpointConfig,
                 primitives: Mapping[str, Callable[..., Any]], *,
                 prices: PriceTable | None = None, on_call: OnCall | None = None,
                 image_detail: str = 'auto', image_format: str = 'png',
                 wrap_client: WrapClient | None = None) -> None:
        super().__init__(endpoint, prices=prices, on_call=on_call, image_detail=image_detail,
                         image_format=image_format, wrap_client=wrap_client)
        self.api_reference = code_api_reference(primitives)

    def build_tools(self, card: TaskCard) -> list[dict[str, Any]]:
        """Return the single ``python`` tool."""
        return [python_tool(PYTHON_TOOL_DESCRIPTION)]

    def build_system_prompt(self, tools: Sequence[Mapping[str, Any]], card: TaskCard) -> str:
        """Return the code interface's system prompt with the card's station facts."""
        from . import interface_prompt  # the registry holds each interface's prompt files

        return interface_prompt(self.name, self.api_reference, card.station_facts)

    def cell_for(self, call: ParseResult) -> Cell:
        """Return the model's code as the cell, labelled with the call id."""
        return Cell(code=call.arguments['code'], label=call.call_id)

    def correction(self) -> str:
        """Say that a reply without a ``python`` call ran nothing, and how to act."""
        return CORRECTION

    def answer(self, call: ParseResult, result: CellResult) -> ToolOutput:
        """Return the cell's output text and its images."""
        images = image_attachments(result.images, detail=self.image_detail,
                                   fmt=self.image_format)
        return ToolOutput(call.call_id, result.output or EMPTY_OUTPUT, images)

"""
The tool-calling baseline: every primitive is a function tool with the same name and arguments.

Tool schemas come from the primitives' signatures and docstrings (``llm.schema``), without
the runtime's ``cancel``/``feedback`` keywords. Each valid tool call runs as a one-call cell
through the same runtime, guards and budgets as the code agent; the cell is built from the
parsed JSON arguments as Python literals (never pasted text), e.g.
``print(repr(robo.move_to(arm='left', xyz=[0.1, -0.2, 0.9])))``.

Images, two variants:

- ``tools`` (``images='after_motion'``): after each motion or gripper primitive the result
  carries the picture of every camera (``robo.show`` calls appended to the cell).
- ``tools_on_request`` (``images='on_request'``): no automatic pictures; a ``show(camera,
  note)`` tool returns one on request.

The ``image`` primitive returns pixels, which a tool caller cannot hold: as a tool (same name
and arguments, its description says so) it returns the picture itself (``robo.show(camera)``)
in both variants. Several tool calls in one reply
run in order, each answered; a malformed call is answered with its parse error and runs no
cell.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
import inspect
import math
import re
from typing import Any

from pyrua_primitives.library import ACTING
from pyrua_primitives.naming import unknown_name

from .base import Cell, TaskCard
from .conversation import ConversationPlanner, image_attachments, OnCall, WrapClient
from ..accounting import PriceTable
from ..llm import EndpointConfig, function_schema, ParseResult, ToolOutput
from ..prompt import PromptVariant, tools_api_reference
from ..runtime import CellResult
from ..runtime.robo import RUNTIME_KEYWORDS

MOTION_PRIMITIVES = ACTING
"""Pictures follow these (the registry's acting primitives)."""
SHOW_TOOL = 'show'
IMAGE_PRIMITIVE = 'image'
TOOL_ORDER = ('measure', 'open_gripper', 'move_to', 'close_gripper', 'locate', 'locate_all',
              'pose', 'home', 'reachable', 'image', SHOW_TOOL)
"""The tool list starts with these, in this order (the rest follow by name): the worked
example's tools in the order it calls them, then the other everyday ones. A small model
given an alphabetical list called ``back_project`` first, or every tool in list order."""
LOOKING_ACTS = frozenset({'measure'})
"""Acting primitives whose purpose is a look (``measure`` moves a wrist camera above an
object to measure it): like the reads, barred for one call after a repeat
(``EndpointConfig.bar_repeated_looks``)."""
IMAGE_TOOL_DESCRIPTION = (
    'Capture one camera image now and return it to you.\n\nReturns: the picture, after a '
    'placeholder line [image k: camera].')


_CELL_TRACEBACK = re.compile(r'Traceback \(most recent call last\):\n'
                             r'(?:  File "<cell \d+>".*\n(?:    .*\n)*)+')
"""The frames of a tool call's one-line cell: the model wrote no cell, so its answer is
``Error: <type>: <message>`` without them."""


def show(camera: str, note: str = '') -> None:
    """
    Return the current picture of one camera to you.

    :param camera: the camera name, e.g. ``'head'``, ``'left_wrist'`` or ``'right_wrist'``.
    :param note: a short caption kept with the picture, e.g. what to look for.
    :returns: the picture, after a placeholder line ``[image k: camera — note]``.
    """


def tool_view(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """
    Return ``fn`` as the tool caller sees it: without the runtime's keyword-only arguments.

    :param fn: a host-side primitive.
    :param name: its ``robo`` name.
    :returns: a callable with ``fn``'s docstring and a signature without ``cancel`` and
        ``feedback``, for ``function_schema``.
    """
    signature = inspect.signature(fn)
    kept = [p for p in signature.parameters.values()
            if not (p.kind is p.KEYWORD_ONLY and p.name in RUNTIME_KEYWORDS)]

    def view(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    view.__name__ = name
    view.__doc__ = inspect.getdoc(fn)
    view.__wrapped__ = fn  # type hints resolve in fn's module
    view.__signature__ = signature.replace(parameters=kept)
    names = {p.name for p in kept} | {'return'}
    view.__annotations__ = {key: value for key, value in
                            getattr(fn, '__annotations__', {}).items() if key in names}
    return view


def literal(value: Any) -> str:
    """
    Return Python source for a JSON-decoded value.

    :param value: None, bool, int, float, str, or lists and string-keyed dicts of those.
    :raises TypeError: for anything else.
    """
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f'float({str(value)!r})'
    if isinstance(value, list):
        return '[' + ', '.join(literal(v) for v in value) + ']'
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return '{' + ', '.join(f'{k!r}: {literal(v)}' for k, v in value.items()) + '}'
    raise TypeError(f'argument value of type {type(value).__name__} vs JSON types; '
                    'send numbers, strings, booleans, null, arrays or objects')


def call_code(name: str, arguments: Mapping[str, Any],
              show_cameras: Sequence[str] = ()) -> str:
    """
    Return the cell that runs one tool call.

    :param name: the primitive (or ``show``) called.
    :param arguments: the validated JSON arguments; their names are the primitive's
        parameter names, checked against its schema.
    :param show_cameras: cameras whose pictures follow the result.
    :returns: Python source of a cell.
    """
    for key in arguments:
        if not key.isidentifier():
            raise ValueError(f'argument name {key!r} vs a Python identifier; use the '
                             "parameter names of the tool's schema")
    args = ', '.join(f'{key}={literal(value)}' for key, value in arguments.items())
    if name == SHOW_TOOL or (name == IMAGE_PRIMITIVE and set(arguments) == {'camera'}):
        lines = [f'robo.show({args})']
    else:
        lines = [f'print(repr(robo.{name}({args})))']
    lines.extend(f'robo.show({camera!r})' for camera in show_cameras)
    return '\n'.join(lines)


def _tool_rank(schema: Mapping[str, Any]) -> tuple[int, str]:
    name = schema['function']['name']
    return (TOOL_ORDER.index(name) if name in TOOL_ORDER else len(TOOL_ORDER), name)


class ToolCallingPlanner(ConversationPlanner):
    """
    An LLM that calls the primitives one tool call at a time.

    :param endpoint: the endpoint and model.
    :param primitives: the episode's primitives; each becomes a tool of the same name.
    :param images: ``'after_motion'`` (the ``tools`` planner) or ``'on_request'``
        (``tools_on_request``).
    :param motion: names of the primitives after which pictures follow (``after_motion``).
    :param cameras: cameras whose pictures follow a motion; by default those of the task
        card's images.
    :param prices: the price table (the packaged one by default).
    :param on_call: called with each counted call's record.
    :param image_detail: OpenAI image detail of every image sent.
    :param image_format: ``'png'`` or ``'jpeg'``.
    :param wrap_client: wraps each episode's ``ChatClient`` (recording).
    :param prompt: which optional prompt parts to send (``PromptVariant``; all by default).
    :raises ValueError: for an unknown image mode, or pictures without an ``image`` primitive.
    """

    def __init__(self, endpoint: EndpointConfig,
                 primitives: Mapping[str, Callable[..., Any]], *,
                 images: str = 'after_motion', motion: Collection[str] = MOTION_PRIMITIVES,
                 cameras: Sequence[str] | None = None, prices: PriceTable | None = None,
                 on_call: OnCall | None = None, image_detail: str = 'auto',
                 image_format: str = 'png', wrap_client: WrapClient | None = None,
                 prompt: PromptVariant | None = None) -> None:
        from . import PLANNERS  # the registry names each image mode's planner kind

        kinds = {kind.images: name for name, kind in PLANNERS.items() if kind.images}
        if images not in kinds:
            raise ValueError(unknown_name('image mode', images, kinds))
        if IMAGE_PRIMITIVE not in primitives:
            raise ValueError(f'tool-calling planner needs an {IMAGE_PRIMITIVE!r} primitive vs '
                             f'primitives {sorted(primitives)}; pictures are taken with it')
        if SHOW_TOOL in primitives:
            raise ValueError(f'primitive name {SHOW_TOOL!r} is reserved for robo.show; rename it')
        super().__init__(endpoint, prices=prices, on_call=on_call, image_detail=image_detail,
                         image_format=image_format, wrap_client=wrap_client, prompt=prompt)
        self.name = kinds[images]
        self.images = images
        self.motion = frozenset(motion) & set(primitives)
        self.cameras = tuple(cameras) if cameras is not None else None
        self.schemas = [function_schema(tool_view(fn, name), name)
                        for name, fn in primitives.items()]
        for schema in self.schemas:
            if schema['function']['name'] == IMAGE_PRIMITIVE:
                schema['function']['description'] = IMAGE_TOOL_DESCRIPTION
        if images == 'on_request':
            self.schemas.append(function_schema(show, SHOW_TOOL))
        self.schemas.sort(key=_tool_rank)
        self._show_cameras: tuple[str, ...] = ()

    def build_tools(self, card: TaskCard) -> list[dict[str, Any]]:
        """Return one tool per primitive (plus ``show`` on request); fix the cameras."""
        self._show_cameras = (self.cameras if self.cameras is not None
                              else tuple(camera for camera, _ in card.images))
        return list(self.schemas)

    def build_system_prompt(self, tools: Sequence[Mapping[str, Any]], card: TaskCard) -> str:
        """Return the tool interface's system prompt."""
        pictures = self.motion if self.images == 'after_motion' else ()
        from . import interface_prompt  # the registry holds each interface's prompt files

        return interface_prompt(self.name, tools_api_reference(tools, pictures),
                                card.station_facts, worked_example=self.prompt.worked_example)

    def looks_of(self, names: frozenset[str]) -> frozenset[str]:
        """Return the names that observe: every tool but the acting ones, and ``measure``."""
        return frozenset(name for name in names if name not in ACTING or name in LOOKING_ACTS)

    def cell_for(self, call: ParseResult) -> Cell:
        """Return the one-call cell, with pictures after a motion in ``after_motion`` mode."""
        cameras = (self._show_cameras if self.images == 'after_motion' and call.name in
                   self.motion else ())
        return Cell(code=call_code(call.name, call.arguments, cameras), label=call.call_id)

    def correction(self) -> str:
        """Say that a reply without a tool call ran nothing, and how to act."""
        return ('Your reply had no tool call, so nothing ran on the robot. To act, call one of '
                'the tools, e.g. pose(arm="left"). If the task is finished, reply with text '
                'only once more: that ends the episode.')

    def first_action(self) -> tuple[Any, str | None]:
        """Require a tool call (any tool) in the first reply."""
        return 'required', None

    def answer(self, call: ParseResult, result: CellResult) -> ToolOutput:
        """Return the result's repr (or traceback) and its pictures."""
        images = image_attachments(result.images, detail=self.image_detail,
                                   fmt=self.image_format)
        text = _CELL_TRACEBACK.sub('Error: ', result.output) if result.error else result.output
        return ToolOutput(call.call_id, text.rstrip('\n') or 'None', images)

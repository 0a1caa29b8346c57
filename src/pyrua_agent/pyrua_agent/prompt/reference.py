"""
The API reference in the system prompt, generated from the primitives themselves.

The code interface lists every ``robo.<name>`` with the signature and full docstring a cell's
``help(robo.<name>)`` shows (both come from the same ``Robo`` facade), plus ``robo.show``.
The tool interface lists each tool's signature and summary: its full documentation travels in
the tool definition's description, so the prompt does not send it twice.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
import inspect
import textwrap
from typing import Any

from ..llm.tools import signature_text
from ..runtime.robo import INSTRUCTION_DOC, primitive_spec, Robo, RoboValue


def _refuse_call(name: str, args: tuple, kwargs: dict) -> Any:
    raise RuntimeError(f'robo.{name} was called while building the API reference; the '
                       'reference only reads signatures')


def code_api_reference(primitives: Mapping[str, Callable[..., Any]]) -> str:
    """
    Return the code interface's API reference: one entry per ``robo`` method.

    :param primitives: primitive name to host-side callable (the episode's ``robo``).
    :returns: ``robo.name(signature)`` lines, each followed by its indented docstring, in
        name order with ``robo.show`` and ``robo.instruction`` (every episode's runtime
        gives it) among them.
    """
    specs = {name: primitive_spec(fn) for name, fn in primitives.items()}
    specs.setdefault('instruction', primitive_spec(RoboValue('', INSTRUCTION_DOC)))
    robo = Robo(specs, _refuse_call)
    entries = []
    for name in dir(robo):
        if specs.get(name, (True,))[0] is None:  # a value: read, not called
            entries.append(f'robo.{name}: str\n{textwrap.indent(specs[name][2], "    ")}')
            continue
        method = getattr(robo, name)
        doc = inspect.getdoc(method) or '(no documentation)'
        entries.append(f'robo.{name}{inspect.signature(method)}\n'
                       f'{textwrap.indent(doc, "    ")}')
    return '\n\n'.join(entries)


def tools_api_reference(tools: Sequence[Mapping[str, Any]],
                        picture_tools: Collection[str] = ()) -> str:
    """
    Return the tool interface's API reference: each tool's signature and summary line.

    :param tools: the function tool definitions offered to the model.
    :param picture_tools: tools whose result carries every camera's picture; their lines
        say so.
    :returns: one ``- name(arg: type, ...)``: summary line per tool, in the order given.
    """
    lines = []
    for tool in tools:
        description = tool['function'].get('description', '').strip()
        summary = description.splitlines()[0] if description else '(no documentation)'
        if tool['function']['name'] in picture_tools:
            summary += ' [returns the camera pictures]'
        lines.append(f'- {signature_text(tool)}: {summary}')
    lines.append('\nEach tool definition carries its full documentation: arguments, units, '
                 'frames and what a failure returns.')
    return '\n'.join(lines)

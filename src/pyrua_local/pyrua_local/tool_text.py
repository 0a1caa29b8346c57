"""
Tool calls written as text: what open models emit when a server does not parse them.

Three forms are recognised, in this order:

1. Hermes / Qwen: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (one or more;
   a missing closing tag at the very end is accepted, as a reply cut by a stop token).
2. A JSON object with ``name`` and ``arguments`` (or ``parameters``), alone or in a
   ```` ```json ```` block.
3. A ```` ```python ```` block, only where a tool named ``python`` with a ``code`` argument is
   offered: the block becomes ``python(code=...)``. A block with no language tag counts only
   if it compiles as Python.

The arguments come back as a JSON string, as an OpenAI server would send them, so the
planners check every call the same way whatever form it came in. JSON inside a call is read
leniently (raw newlines in strings, as small models write code) but never guessed at: what
does not decode is returned as it was written and the planner answers it as malformed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
import json
import re

PYTHON_TOOL = 'python'
_HERMES = re.compile(r'<tool_call>\s*(.*?)\s*(?:</tool_call>|$)', re.DOTALL)
_FENCE = re.compile(r'```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)(?:```|$)', re.DOTALL)


@dataclass(frozen=True, slots=True)
class TextToolCall:
    """One tool call found in a reply's text: its name, its arguments as JSON, its form."""

    name: str
    arguments: str
    form: str

    def __repr__(self) -> str:
        return f'TextToolCall({self.name!r}, {len(self.arguments)} chars, form={self.form})'


@dataclass(frozen=True, slots=True)
class TextParse:
    """The tool calls found in a reply and the text left around them."""

    calls: tuple[TextToolCall, ...]
    text: str

    def __repr__(self) -> str:
        return f'TextParse({len(self.calls)} calls, {len(self.text)} chars of text)'


def _loads(raw: str) -> object:
    try:
        return json.loads(raw, strict=False)
    except ValueError:
        return None


def _call_from_object(obj: object, form: str) -> TextToolCall | None:
    if not isinstance(obj, dict) or not isinstance(obj.get('name'), str):
        return None
    args = obj.get('arguments', obj.get('parameters', {}))
    if isinstance(args, str):
        decoded = _loads(args)
        arguments = args if decoded is None else json.dumps(decoded, ensure_ascii=False)
    else:
        arguments = json.dumps(args, ensure_ascii=False)
    return TextToolCall(obj['name'], arguments, form)


def _hermes(text: str) -> TextParse | None:
    matches = list(_HERMES.finditer(text))
    if not matches:
        return None
    calls = []
    for match in matches:
        raw = match.group(1).strip()
        call = _call_from_object(_loads(raw), 'hermes')
        if call is None:
            # Unreadable: keep it as a call with the raw text, so the planner answers it.
            name = re.search(r'"name"\s*:\s*"([^"]*)"', raw)
            call = TextToolCall(name.group(1) if name else '', raw, 'hermes')
        calls.append(call)
    rest = _HERMES.sub('', text).strip()
    return TextParse(tuple(calls), rest)


def _json_object(text: str) -> TextParse | None:
    stripped = text.strip()
    candidates = [(stripped, None)]
    candidates += [(m.group(2).strip(), m) for m in _FENCE.finditer(text)
                   if m.group(1).lower() in ('json', '')]
    for raw, match in candidates:
        if not raw.startswith('{'):
            continue
        call = _call_from_object(_loads(raw), 'json')
        if call is not None:
            rest = '' if match is None else (text[:match.start()] + text[match.end():]).strip()
            return TextParse((call,), rest)
    return None


def _compiles(code: str) -> bool:
    try:
        compile(code, '<cell>', 'exec')
    except (SyntaxError, ValueError):
        return False
    return True


def _python_blocks(text: str) -> TextParse | None:
    blocks = [m for m in _FENCE.finditer(text)
              if m.group(1).lower() in ('python', 'py', 'python3')
              or (not m.group(1) and _compiles(m.group(2)))]
    if not blocks:
        return None
    calls = tuple(TextToolCall(PYTHON_TOOL, json.dumps({'code': m.group(2).rstrip()}),
                               'python_block') for m in blocks)
    rest = text
    for match in blocks:
        rest = rest.replace(match.group(0), '', 1)
    return TextParse(calls, rest.strip())


def parse_text_tool_calls(text: str | None, tool_names: Iterable[str]) -> TextParse:
    """
    Find the tool calls a model wrote into its reply's text.

    :param text: the reply's content.
    :param tool_names: the tools offered in the request (a ```` ```python ```` block counts
        only when ``python`` is among them).
    :returns: the calls in the order written (none when the text holds no call) and the
        text around them.
    """
    text = text or ''
    names = set(tool_names)
    for finder in (_hermes, _json_object):
        found = finder(text)
        if found is not None:
            return found
    if PYTHON_TOOL in names:
        found = _python_blocks(text)
        if found is not None:
            return found
    return TextParse((), text.strip())

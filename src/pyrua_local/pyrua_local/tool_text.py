r"""
Tool calls written as text: what open models emit when a server does not parse them.

Three forms are recognised, in this order:

1. Hermes / Qwen: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (one or more;
   a missing closing tag at the very end is accepted, as a reply cut by a stop token).
2. A JSON object with ``name`` and ``arguments`` (or ``parameters``), alone or in a
   ```` ```json ```` block; or several, one per line and nothing else (JSON Lines: each line
   one call, in order).
3. A ```` ```python ```` block, only where a tool named ``python`` with a ``code`` argument is
   offered: the block becomes ``python(code=...)``. A block with no language tag counts only
   if it compiles as Python.

The arguments come back as a JSON string, as an OpenAI server would send them, so the
planners check every call the same way whatever form it came in. JSON inside a call is read
leniently (raw newlines in strings, as small models write code), and four slips that small
models really make are mended, each named in the call's ``repairs``:

- ``wrapped``: the arguments wrapped twice, ``{"name": "python", "arguments": {"name":
  "python", "arguments": {...}}}`` (the inner object repeats the tool's name);
- ``brace``: the one closing brace missing at the end of the call;
- ``triple_quotes``: a Python triple-quoted string as a value (``"code": '''...'''``, single
  or double quotes);
- ``language_line``: a fenced block whose first line repeats its language (``python``).

Nothing else is guessed: what does not decode after those is returned as it was written,
and the planner answers it as malformed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
import json
import re

PYTHON_TOOL = 'python'
_HERMES = re.compile(r'<tool_call>\s*(.*?)\s*(?:</tool_call>|$)', re.DOTALL)
_FENCE = re.compile(r'```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)(?:```|$)', re.DOTALL)
_TRIPLE_QUOTED = re.compile(r'(:\s*)("""|\'\'\')(.*?)\2', re.DOTALL)
PYTHON_LANGUAGES = ('python', 'py', 'python3')


@dataclass(frozen=True, slots=True)
class TextToolCall:
    """One tool call found in a reply's text: its name, its arguments as JSON, its form."""

    name: str
    arguments: str
    form: str
    repairs: tuple[str, ...] = ()

    def __repr__(self) -> str:
        mended = f', repairs={",".join(self.repairs)}' if self.repairs else ''
        return (f'TextToolCall({self.name!r}, {len(self.arguments)} chars, '
                f'form={self.form}{mended})')


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


def loads_mended(raw: str) -> tuple[object, tuple[str, ...]]:
    """
    Decode a JSON object as a small model wrote it: as is, else with the named repairs.

    :returns: the decoded value (None when it does not decode) and the repairs it needed
        (``triple_quotes``, ``brace``).
    """
    value = _loads(raw)
    if value is not None:
        return value, ()
    repairs: list[str] = []
    text = raw
    if _TRIPLE_QUOTED.search(text):
        text = _TRIPLE_QUOTED.sub(lambda m: m.group(1) + json.dumps(m.group(3)), text)
        repairs.append('triple_quotes')
        value = _loads(text)
    if value is None and text.rstrip().startswith('{'):
        value = _loads(text.rstrip() + '}')
        repairs.append('brace')
    return (value, tuple(repairs)) if value is not None else (None, ())


def unwrap_arguments(name: str, arguments: object) -> tuple[object, bool]:
    """
    Return the arguments of a call to ``name`` with one extra wrapping removed.

    A small model forced into a call sometimes writes the whole call again as its
    arguments: ``{"name": name, "arguments": {...}}``. Only that exact shape (the same
    name, no other key) is unwrapped. Returns (arguments, whether it was unwrapped).
    """
    if (isinstance(arguments, dict) and arguments.get('name') == name
            and set(arguments) in ({'name', 'arguments'}, {'name', 'parameters'})):
        inner = arguments.get('arguments', arguments.get('parameters'))
        if isinstance(inner, dict):
            return inner, True
    return arguments, False


def _mended(raw: str, form: str) -> tuple[object, str, tuple[str, ...]]:
    value, repairs = loads_mended(raw)
    return value, form, repairs


def _call_from_object(obj: object, form: str,
                      repairs: tuple[str, ...] = ()) -> TextToolCall | None:
    if not isinstance(obj, dict) or not isinstance(obj.get('name'), str):
        return None
    args = obj.get('arguments', obj.get('parameters', {}))
    if isinstance(args, str):
        decoded = _loads(args)
        if decoded is None:
            return TextToolCall(obj['name'], args, form, repairs)
        args = decoded
    args, unwrapped = unwrap_arguments(obj['name'], args)
    if unwrapped:
        repairs += ('wrapped',)
    return TextToolCall(obj['name'], json.dumps(args, ensure_ascii=False), form, repairs)


def _hermes(text: str) -> TextParse | None:
    matches = list(_HERMES.finditer(text))
    if not matches:
        return None
    calls = []
    for match in matches:
        raw = match.group(1).strip()
        call = _call_from_object(*_mended(raw, 'hermes'))
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
        call = _call_from_object(*_mended(raw, 'json'))
        if call is not None:
            rest = '' if match is None else (text[:match.start()] + text[match.end():]).strip()
            return TextParse((call,), rest)
    lines = [line.strip() for line in stripped.splitlines() if line.strip()]
    if len(lines) > 1 and all(line.startswith('{') for line in lines):
        calls = [_call_from_object(*_mended(line, 'json_lines')) for line in lines]
        if all(call is not None for call in calls):
            return TextParse(tuple(calls), '')
    return None


def _compiles(code: str) -> bool:
    try:
        compile(code, '<cell>', 'exec')
    except (SyntaxError, ValueError):
        return False
    return True


def strip_language_line(code: str) -> tuple[str, bool]:
    """Drop a first line that only repeats the block's language (``python``); say if it did."""
    first, _, rest = code.partition('\n')
    if first.strip().lower() in PYTHON_LANGUAGES:
        return rest, True
    return code, False


def python_blocks(text: str, *, closed_only: bool = False) -> list[str]:
    """
    Return the code of every ```` ```python ```` block of a reply, in order.

    An untagged block counts when it compiles; a first line that repeats the language is
    dropped; an unclosed block at the end counts as written (a model may stop at the end of
    its code), unless ``closed_only`` (a reply cut at the output limit: its last block is
    cut mid-way).
    """
    found = _python_blocks(text, closed_only=closed_only)
    return [] if found is None else [json.loads(c.arguments)['code'] for c in found.calls]


def _python_blocks(text: str, *, closed_only: bool = False) -> TextParse | None:
    blocks = [m for m in _FENCE.finditer(text)
              if (m.group(0).endswith('```') or not closed_only)
              and m.group(1).lower() in PYTHON_LANGUAGES
              or (not m.group(1) and _compiles(m.group(2)))]
    if not blocks:
        return None
    calls = []
    for match in blocks:
        code, repaired = strip_language_line(match.group(2))
        calls.append(TextToolCall(PYTHON_TOOL, json.dumps({'code': code.rstrip()}),
                                  'python_block', ('language_line',) if repaired else ()))
    calls = tuple(calls)
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

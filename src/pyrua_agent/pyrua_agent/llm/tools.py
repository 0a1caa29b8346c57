"""
Tool definitions the planners offer and the checking of the tool calls a model sends back.

Arguments are read as ``pyrua_local.tool_text`` reads calls written as text: the slips small
models make (wrapped twice, the last brace missing, Python triple quotes) are mended, nothing
else is guessed. A malformed call is not an exception: ``parse_tool_call`` returns a
``ParseResult`` whose ``reason`` is written for the model (what was wrong, the bound, what to
send instead), and the planner answers the call with it as the tool result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
import json
from typing import Any

from pyrua_local.tool_text import loads_mended, unwrap_arguments
from pyrua_primitives.naming import unknown_name

PYTHON_TOOL_NAME = 'python'
_JSON_TYPES = {
    'integer': (int,), 'number': (int, float), 'string': (str,), 'boolean': (bool,),
    'array': (list,), 'object': (dict,), 'null': (type(None),),
}


def python_tool(description: str | None = None) -> dict[str, Any]:
    """
    Return the code agent's single tool, ``python(code)``.

    :param description: the tool description; a short default says what a cell is.
    """
    text = description or (
        'Run one Python cell in the persistent robot session and return what it printed, '
        'the value of its last expression and the images it asked for.')
    return {'type': 'function', 'function': {
        'name': PYTHON_TOOL_NAME, 'description': text,
        'parameters': {
            'type': 'object',
            'properties': {'code': {'type': 'string', 'description': 'Python source code.'}},
            'required': ['code'], 'additionalProperties': False}}}


@dataclass(frozen=True, slots=True)
class ParseResult:
    """One tool call checked against the offered tools; ``reason`` is the model-facing error."""

    valid: bool
    reason: str
    call_id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        if self.valid:
            return f'ParseResult(valid=True, {self.name}({", ".join(self.arguments)}))'
        return f'ParseResult(valid=False, reason={self.reason[:80]!r})'


def _type_names(schema: Mapping[str, Any]) -> list[str]:
    if 'anyOf' in schema:
        return [n for s in schema['anyOf'] for n in _type_names(s)]
    kind = schema.get('type', [])
    return [kind] if isinstance(kind, str) else list(kind)


def _describe(schema: Mapping[str, Any]) -> str:
    if 'enum' in schema:
        return 'one of ' + ', '.join(json.dumps(v) for v in schema['enum'])
    names = _type_names(schema)
    if 'array' in names and 'items' in schema:
        count = schema.get('minItems')
        size = f'{count} ' if count is not None and count == schema.get('maxItems') else ''
        names = [f'array of {size}{_describe(schema["items"])}' if n == 'array' else n
                 for n in names]
    return ' or '.join(names)


def _matches(value: Any, schema: Mapping[str, Any]) -> bool:
    if 'anyOf' in schema:
        return any(_matches(value, s) for s in schema['anyOf'])
    if 'enum' in schema and value not in schema['enum']:
        return False
    names = _type_names(schema)
    if names and not any(isinstance(value, _JSON_TYPES[n]) and not (
            isinstance(value, bool) and n in ('integer', 'number')) for n in names):
        return False
    if isinstance(value, list) and 'items' in schema:
        low, high = schema.get('minItems', 0), schema.get('maxItems', len(value))
        if not low <= len(value) <= high:
            return False
        return all(_matches(item, schema['items']) for item in value)
    return True


def signature_text(tool: Mapping[str, Any]) -> str:
    """Return ``name(arg: type, opt: type = default)`` for a function tool definition."""
    function = tool['function']
    parameters = function.get('parameters', {})
    required = set(parameters.get('required', ()))
    args = []
    for arg, schema in parameters.get('properties', {}).items():
        text = f'{arg}: {_describe(schema)}'
        if arg not in required:
            text += f' = {json.dumps(schema.get("default"))}'
        args.append(text)
    return f'{function["name"]}({", ".join(args)})'


def parse_tool_call(call_id: str, name: str, arguments_json: str,
                    tools: Sequence[Mapping[str, Any]]) -> ParseResult:
    """
    Check one tool call against the offered function tools.

    :param call_id: the call id the endpoint gave.
    :param name: the tool name the model called.
    :param arguments_json: the arguments string exactly as sent.
    :param tools: the tool definitions offered in the request.
    :returns: a valid result with the decoded arguments, or an invalid one whose reason
        tells the model what to send instead.
    """
    by_name = {tool['function']['name']: tool for tool in tools}
    if name not in by_name:
        return ParseResult(False, f'{unknown_name("tool", name, by_name)}; call one of those',
                           call_id, name)
    tool = by_name[name]
    usage = f'expected {signature_text(tool)}'
    try:
        arguments = json.loads(arguments_json) if arguments_json.strip() else {}
    except json.JSONDecodeError as exc:
        arguments, _ = loads_mended(arguments_json)  # the slips small models make, named
        if arguments is None:
            return ParseResult(
                False, f'arguments of {name!r} are not valid JSON ({exc.msg} at character '
                f'{exc.pos}); send one JSON object, {usage}', call_id, name)
    arguments, _ = unwrap_arguments(name, arguments)
    if not isinstance(arguments, dict):
        return ParseResult(False, f'arguments of {name!r} are a JSON {type(arguments).__name__}'
                           f' vs an object; send {{"name": value, ...}}, {usage}', call_id, name)
    parameters = tool['function'].get('parameters', {})
    properties = parameters.get('properties', {})
    problems = []
    missing = [a for a in parameters.get('required', ()) if a not in arguments]
    if missing:
        problems.append('missing required argument(s) ' + ', '.join(map(repr, missing)))
    for arg in arguments:
        if arg not in properties:
            problems.append(unknown_name(f'argument of {name!r}', arg, properties))
    for arg, value in arguments.items():
        if arg in properties and not _matches(value, properties[arg]):
            problems.append(f'argument {arg!r}={json.dumps(value)[:60]} vs '
                            f'{_describe(properties[arg])}')
    if problems:
        return ParseResult(False, f'call to {name!r}: {"; ".join(problems)}; {usage}',
                           call_id, name)
    return ParseResult(True, '', call_id, name, arguments)

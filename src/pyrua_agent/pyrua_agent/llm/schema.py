"""
Function-tool JSON schemas generated from a Python callable's signature and docstring.

The tool-calling baseline exposes each primitive under the same name and arguments as the
code agent's API, so both schemas and API reference come from one signature.

Types: ``int`` -> integer, ``float`` -> number, ``str`` -> string, ``bool`` -> boolean,
``Optional[X]`` -> X or null, ``Sequence[X]``/``list[X]`` -> array of X,
``tuple[X, X, X]`` -> array of exactly three X, ``Literal[...]`` -> enum, ``dict`` ->
object. A parameter with a default is not required. ``:param name:`` lines become the
property descriptions; the rest of the docstring, ``:returns:`` included, the description.
"""

from __future__ import annotations

import collections.abc
import inspect
import re
import types
import typing
from typing import Any, Callable, Literal, Union

_SIMPLE = {int: 'integer', float: 'number', str: 'string', bool: 'boolean', dict: 'object'}
_SEQUENCES = (list, collections.abc.Sequence, collections.abc.MutableSequence)
_FIELD = re.compile(r'^:(param|returns?|raises?|type|rtype)\b\s*([^:]*):\s*(.*)$')


def annotation_schema(annotation: Any, where: str) -> dict[str, Any]:
    """
    Return the JSON schema of one type annotation.

    :param annotation: the resolved annotation.
    :param where: what the annotation belongs to, for the error message.
    :raises TypeError: for a type this generator does not map.
    """
    if annotation in _SIMPLE:
        return {'type': _SIMPLE[annotation]}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal:
        kinds = {type(a) for a in args}
        if len(kinds) != 1 or next(iter(kinds)) not in _SIMPLE:
            raise TypeError(f'{where}: Literal{list(args)} mixes types; use one of str/int')
        return {'type': _SIMPLE[next(iter(kinds))], 'enum': list(args)}
    if origin in (Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        if len(members) == 1 and len(args) == 2:
            inner = annotation_schema(members[0], where)
            if isinstance(inner.get('type'), str):
                return {**inner, 'type': [inner['type'], 'null']}
            return {'anyOf': [inner, {'type': 'null'}]}
        return {'anyOf': [annotation_schema(a, where) if a is not type(None) else {'type': 'null'}
                          for a in args]}
    if origin in _SEQUENCES and len(args) == 1:
        return {'type': 'array', 'items': annotation_schema(args[0], where)}
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return {'type': 'array', 'items': annotation_schema(args[0], where)}
    if origin is tuple and args and Ellipsis not in args:
        items = [annotation_schema(a, where) for a in args]
        if any(item != items[0] for item in items):
            raise TypeError(f'{where}: tuple{list(args)} mixes types; use tuple[float, ...]')
        return {'type': 'array', 'items': items[0], 'minItems': len(args),
                'maxItems': len(args)}
    if origin in (dict, collections.abc.Mapping):
        return {'type': 'object'}
    raise TypeError(f'{where}: annotation {annotation!r} has no JSON schema mapping; use '
                    'int, float, str, bool, Optional, Sequence, tuple, Literal or dict')


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """
    Split an rclpy-style docstring into a description and parameter descriptions.

    :returns: ``(description, {name: description})``; ``:returns:`` text is appended to the
        description as ``Returns: ...``, ``:raises:`` lines are left out.
    """
    summary: list[str] = []
    fields: list[tuple[str, str, list[str]]] = []
    for line in inspect.cleandoc(doc or '').splitlines():
        match = _FIELD.match(line.strip())
        if match:
            kind, name, text = match.groups()
            fields.append((kind, name.split()[-1] if name.split() else '', [text.strip()]))
        elif fields:
            if line.strip():
                fields[-1][2].append(line.strip())
        else:
            summary.append(line)
    params = {name: ' '.join(text) for kind, name, text in fields if kind == 'param'}
    returns = [' '.join(text) for kind, _, text in fields if kind.startswith('return')]
    description = '\n'.join(summary).strip()
    if returns:
        description = f"{description}\n\nReturns: {' '.join(returns)}".strip()
    return description, params


def function_schema(fn: Callable[..., Any], name: str | None = None) -> dict[str, Any]:
    """
    Return the OpenAI chat function-tool definition of a callable.

    :param fn: a function or bound method with type hints on every parameter.
    :param name: the tool name; the function's ``__name__`` by default.
    :returns: ``{'type': 'function', 'function': {'name', 'description', 'parameters'}}``.
    :raises TypeError: for ``*args``/``**kwargs``, a missing hint or an unmapped type.
    """
    tool_name = name or fn.__name__
    hints = typing.get_type_hints(fn)
    description, docs = parse_docstring(inspect.getdoc(fn))
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in inspect.signature(fn).parameters.values():
        where = f'tool {tool_name!r} parameter {param.name!r}'
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f'{where} is *args/**kwargs; tools need named parameters')
        if param.name not in hints:
            raise TypeError(f'{where} has no type hint; annotate it')
        schema = annotation_schema(hints[param.name], where)
        if param.name in docs:
            schema['description'] = docs[param.name]
        if param.default is param.empty:
            required.append(param.name)
        elif param.default is None or isinstance(param.default, (bool, int, float, str)):
            schema['default'] = param.default
        elif isinstance(param.default, tuple):
            schema['default'] = list(param.default)
        properties[param.name] = schema
    parameters = {'type': 'object', 'properties': properties, 'required': required,
                  'additionalProperties': False}
    return {'type': 'function',
            'function': {'name': tool_name, 'description': description,
                         'parameters': parameters}}

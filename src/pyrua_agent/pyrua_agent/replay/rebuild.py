"""
Rebuild a recorded primitive result (or error) as the object the primitive returned.

The recorder stores a result as ``convert.plain`` JSON: dataclasses as objects, tuples and
small arrays as lists, NaN as null, with the class name beside it. The primitive's return
annotation names the class, and the dataclass field annotations say how to turn each JSON
value back (tuple, ``np.ndarray``, float with NaN), so the rebuilt result has the recorded
repr. ``rebuild_result`` checks that: a repr that differs is reported, never hidden.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
import dataclasses
import math
import types
import typing
from typing import Any

import numpy as np

_PLAIN_TYPES = {'float': float, 'int': int, 'str': str, 'bool': bool, 'NoneType': type(None)}


def return_hint(func: Callable[..., Any]) -> Any:
    """Return the resolved return annotation of ``func`` (``Any`` when it has none)."""
    target = getattr(func, '__func__', func)
    try:
        return typing.get_type_hints(target).get('return', Any)
    except (NameError, TypeError):
        return Any


def _nan(value: Any) -> Any:
    if isinstance(value, list):
        return [_nan(v) for v in value]
    return math.nan if value is None else value


def _union(hint: Any) -> tuple[Any, ...] | None:
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return typing.get_args(hint)
    return None


def rebuild_value(value: Any, hint: Any) -> Any:
    """
    Return JSON ``value`` turned back into a value of type ``hint``.

    :param value: what ``convert.plain`` recorded.
    :param hint: the resolved annotation (a dataclass, ``float``, ``tuple[float, ...]``,
        ``np.ndarray``, a union, ``Any``).
    """
    if hint is Any or value is None and hint is type(None):
        return value
    options = _union(hint)
    if options is not None:
        if value is None and type(None) in options:
            return None
        for option in options:
            if option is not type(None):
                try:
                    return rebuild_value(value, option)
                except (TypeError, ValueError, KeyError):
                    continue
        return value
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, Mapping):
            raise TypeError(f'{hint.__name__} recorded as {type(value).__name__}, not fields')
        hints = typing.get_type_hints(hint)
        kwargs = {f.name: rebuild_value(value[f.name], hints.get(f.name, Any))
                  for f in dataclasses.fields(hint) if f.init and f.name in value}
        return hint(**kwargs)
    if hint is float:
        return math.nan if value is None else float(value)
    if hint is np.ndarray:
        return np.asarray(_nan(value))
    origin = typing.get_origin(hint)
    if origin is tuple and isinstance(value, list):
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(rebuild_value(v, args[0]) for v in value)
        if args and len(args) == len(value):
            return tuple(rebuild_value(v, a) for v, a in zip(value, args, strict=True))
        return tuple(value)
    if origin is list and isinstance(value, list):
        (item,) = typing.get_args(hint) or (Any,)
        return [rebuild_value(v, item) for v in value]
    return value


def rebuild_result(record: Mapping[str, Any], hint: Any) -> tuple[Any, str]:
    """
    Return a recorded primitive result as its object, and a note when it is not exact.

    :param record: the ``/pyrua/primitive/result`` JSON record (``fields``,
        ``result_type``, ``result_repr``).
    :param hint: the primitive's return annotation (``return_hint``).
    :returns: ``(value, note)``; ``note`` is '' when the rebuilt repr equals the
        recorded one, else it names both.
    """
    name = record.get('result_type', '')
    fields = record.get('fields')
    target = hint
    candidates = [hint, *(_union(hint) or ())]
    for candidate in candidates:
        if getattr(candidate, '__name__', None) == name:
            target = candidate
            break
    else:
        target = _PLAIN_TYPES.get(name, hint)
    value = rebuild_value(fields, target)
    recorded = record.get('result_repr', '')
    if name == 'ndarray' or repr(value) == recorded:
        return value, ''
    return value, (f'rebuilt {name} repr {repr(value)[:80]!r} vs recorded {recorded[:80]!r}; '
                   'the recorder must store the fields this type needs')


class RecordedError(Exception):
    """Base of the errors replay raises where the recorded primitive raised a non-builtin."""


def rebuild_error(text: str) -> Exception:
    """
    Return the exception a recorded ``'<Type>: <message>'`` error text stands for.

    Builtin types are rebuilt as themselves; any other type as a subclass of
    ``RecordedError`` with the same name, so the cell sees the recorded type name.
    """
    type_name, _, message = text.partition(': ')
    builtin = getattr(builtins, type_name, None)
    if isinstance(builtin, type) and issubclass(builtin, Exception):
        try:
            error = builtin(message)
        except Exception:
            error = None
        if error is not None and str(error) == message:
            return error
        if error is not None:  # KeyError quotes its message: keep the recorded text as is
            kind = type(type_name, (builtin,), {'__str__': lambda self: self.args[0],
                                                '__module__': 'builtins'})
            return kind(message)
    if not type_name.isidentifier():
        return RecordedError(text)
    return type(type_name, (RecordedError,), {'__module__': __name__})(message)

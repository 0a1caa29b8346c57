"""
Checks of the values a call hands a primitive, against the primitive's declared signature.

The dispatch layer (the agent's cell runtime) runs ``SignatureCheck.check`` on every call
before the call reaches the station, the recorder or a ROS goal, so a primitive, a bag
message and a transcript only ever see values of the declared kinds and sizes. What each
annotation admits:

- ``str``: a string of at most ``MAX_TEXT_CHARS`` characters.
- ``float``: a finite real number (an int, a numpy number or a 0-d numeric array too;
  not a bool).
- ``int``: an integer (numpy integers and 0-d integer arrays too; not a bool) in
  ``INT_RANGE``, the range of the ``int32`` fields of ``pyrua_msgs``; a primitive's
  docstring may narrow it further.
- ``bool``: True or False (numpy bools too).
- ``Sequence[float]``: a list, tuple or one-dimensional numeric numpy array of at most
  ``MAX_ITEMS`` finite numbers. ``Sequence[str]``: a list or tuple of such strings.
- ``X | None``: None or an ``X``. Other annotations (and none) are not checked here.

A refusal is a ``PrimitiveError`` that names the primitive, the argument, what it got and
the limit it broke. Arrays are described by shape and dtype and never expanded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
import inspect
import math
import types
import typing
from typing import Any

import numpy as np

from .errors import PrimitiveError

MAX_TEXT_CHARS = 1000
MAX_ITEMS = 64
INT_RANGE = (-2 ** 31, 2 ** 31 - 1)
# Keywords the runtime passes itself; never the caller's values.
RUNTIME_KEYWORDS = frozenset({'cancel', 'feedback'})
_NONE = type(None)


def describe(value: Any) -> str:
    """Return a short description of ``value`` for a refusal (arrays by shape and dtype)."""
    if isinstance(value, np.ndarray):
        return f'a {"x".join(map(str, value.shape)) or "0-d"} {value.dtype} array'
    if isinstance(value, (str, bytes)):
        return (f'{value!r}' if len(value) <= 40
                else f'a {type(value).__name__} of {len(value)} characters')
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return f'a {type(value).__name__} of {len(value)} items'
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        text = repr(value.item() if isinstance(value, np.generic) else value)
        return text if len(text) <= 40 else text[:37] + '...'
    return f'an object of type {type(value).__name__}'


def _is_number(value: Any) -> bool:
    if isinstance(value, np.ndarray):  # a 0-d array, e.g. from np.array(0.1) or a reduction
        return value.ndim == 0 and value.dtype.kind in 'iuf'
    return (isinstance(value, (int, float, np.integer, np.floating))
            and not isinstance(value, (bool, np.bool_)))


class _Refused(Exception):
    """What one value broke; ``SignatureCheck`` adds the primitive and argument names."""


def _check_float(value: Any) -> None:
    if not _is_number(value):
        raise _Refused(f'got {describe(value)} vs a number')
    if not math.isfinite(float(value)):
        raise _Refused(f'got {describe(value)} vs a finite number')


def _check_int(value: Any) -> None:
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in 'iu':
        value = value.item()
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise _Refused(f'got {describe(value)} vs an integer')
    low, high = INT_RANGE
    if not low <= int(value) <= high:
        raise _Refused(f'got {int(value)} vs the integer range {low}..{high}; pass a '
                       "number in the range the primitive's reference gives")


def _check_str(value: Any) -> None:
    if not isinstance(value, str):
        raise _Refused(f'got {describe(value)} vs a string')
    if len(value) > MAX_TEXT_CHARS:
        raise _Refused(f'got a string of {len(value)} characters vs at most {MAX_TEXT_CHARS}; '
                       'pass a short text')


def _check_bool(value: Any) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise _Refused(f'got {describe(value)} vs True or False')


_SCALARS: dict[Any, Callable[[Any], None]] = {
    float: _check_float, int: _check_int, str: _check_str, bool: _check_bool}


def _sequence_check(item: Any) -> Callable[[Any], None] | None:
    scalar = _SCALARS.get(item)
    if scalar is None:
        return None

    def check(value: Any) -> None:
        if isinstance(value, np.ndarray):
            if item is str or value.ndim != 1 or value.dtype.kind not in 'iuf':
                raise _Refused(f'got {describe(value)} vs a list of '
                               f'{"strings" if item is str else "numbers (one-dimensional)"}')
            if value.size > MAX_ITEMS:
                raise _Refused(f'got {describe(value)} vs at most {MAX_ITEMS} items')
            if value.dtype.kind == 'f' and not np.isfinite(value).all():
                raise _Refused(f'got {describe(value)} with NaN or inf vs finite numbers')
            return
        if not isinstance(value, (list, tuple)):
            raise _Refused(f'got {describe(value)} vs a list of '
                           f'{"strings" if item is str else "numbers"}')
        if len(value) > MAX_ITEMS:
            raise _Refused(f'got {describe(value)} vs at most {MAX_ITEMS} items')
        for k, element in enumerate(value):
            try:
                scalar(element)
            except _Refused as exc:
                raise _Refused(f'item {k}: {exc}') from None

    return check


def _check_for(annotation: Any) -> Callable[[Any], None] | None:
    """Return the check of one annotation, or None when it is not one checked here."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not _NONE]
        optional = len(members) < len(typing.get_args(annotation))
        if len(members) != 1:
            return None
        inner = _check_for(members[0])
        if inner is None or not optional:
            return inner
        return lambda value: None if value is None else inner(value)
    if origin is not None and isinstance(origin, type) and issubclass(origin, Sequence) and (
            origin not in (str, bytes)):
        args = typing.get_args(annotation)
        return _sequence_check(args[0]) if len(args) == 1 else None
    return _SCALARS.get(annotation)


@dataclass(frozen=True, slots=True)
class SignatureCheck:
    """
    The argument checks of one primitive, built once from its signature.

    :param name: the primitive's ``robo.<name>``.
    :param signature: its signature (without ``self``).
    :param checks: parameter name -> check, for the annotations checked here.
    """

    name: str
    signature: inspect.Signature
    checks: Mapping[str, Callable[[Any], None]]

    def __repr__(self) -> str:
        return f'SignatureCheck(robo.{self.name}: {", ".join(self.checks) or "nothing"})'

    @classmethod
    def of(cls, name: str, func: Callable[..., Any]) -> SignatureCheck | None:
        """Return the checks of ``func``'s annotated parameters (None: no signature)."""
        try:
            signature = inspect.signature(func, eval_str=True)
        except (TypeError, ValueError, NameError):
            return None
        checks = {}
        for param in signature.parameters.values():
            variadic = param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD)
            if param.name in RUNTIME_KEYWORDS or variadic:
                continue
            check = _check_for(param.annotation)
            if check is not None:
                checks[param.name] = check
        return cls(name=name, signature=signature, checks=checks)

    def check(self, args: tuple, kwargs: Mapping[str, Any]) -> None:
        """
        Refuse a call whose values do not fit the declared signature.

        A call that does not bind (a missing or unknown argument) is left to the primitive,
        which raises its own ``TypeError``.

        :raises PrimitiveError: naming the argument, what it got and the limit.
        """
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError:
            return
        for param, value in bound.arguments.items():
            check = self.checks.get(param)
            if check is None:
                continue
            try:
                check(value)
            except _Refused as exc:
                raise PrimitiveError(f'robo.{self.name}: {param} {exc}') from None

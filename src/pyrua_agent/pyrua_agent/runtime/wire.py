"""
The plain-data codec of the worker channel: values become msgpack trees and back.

Only these cross, in either direction: None, bool, int (64-bit), float, str, bytes, list,
tuple, dict, numpy arrays of the dtypes in ``ARRAY_DTYPES`` (shape and raw bytes), numpy
scalars (as Python numbers) and the result dataclasses in ``result_types()`` (by registry
key, field by field). A msgpack array on the wire always starts with a tag (``LIST``,
``TUPLE``, ``DICT``, ``ARRAY``, ``RESULT``); msgpack maps and extension types are refused.

Decoding imports nothing and looks no class up by a name it reads: a result's key must be
in the registry built here from ``pyrua_primitives``' public result types, and it is rebuilt
without running its ``__init__``. Structures nested deeper than ``MAX_DEPTH`` (and so any
structure that contains itself) are refused with a message, both ways.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import msgpack
import numpy as np

LIST, TUPLE, DICT, ARRAY, RESULT = range(5)
MAX_DEPTH = 32
# Arrays at least this large travel as raw buffers after the message (no copy into it).
OUT_OF_BAND_BYTES = 64 * 1024
ARRAY_DTYPES = frozenset({
    'bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
    'float16', 'float32', 'float64'})
# Bytes a number or a container head costs on the wire, for the running size estimate.
_ITEM_BYTES = 9
_INT_MIN, _INT_MAX = -2 ** 63, 2 ** 64 - 1


class WireError(ValueError):
    """A value that cannot cross the channel, or bytes that are not a valid message."""


class WireTooLarge(WireError):
    """A value that would take more bytes on the wire than its limit."""


@functools.lru_cache(maxsize=1)
def result_types() -> dict[str, type]:
    """
    Return the registry of result dataclasses that may cross, by key ``module.QualName``.

    Filled from ``pyrua_primitives``: its public names (``__all__`` and the ``results``
    module), the return types the ``PrimitiveLibrary`` primitives declare, and the
    dataclasses those hold in their fields.
    """
    import typing

    import pyrua_primitives
    from pyrua_primitives import results
    from pyrua_primitives.library import PrimitiveLibrary

    todo: list = [getattr(pyrua_primitives, name) for name in pyrua_primitives.__all__]
    todo += [getattr(results, name) for name in dir(results)]
    for name, func in vars(PrimitiveLibrary).items():
        if callable(func) and not name.startswith('_'):
            todo.append(typing.get_type_hints(func).get('return'))
    registry: dict[str, type] = {}
    while todo:
        obj = todo.pop()
        todo.extend(typing.get_args(obj))  # list[LocateResult], X | None, ...
        if not (isinstance(obj, type) and dataclasses.is_dataclass(obj)
                and obj.__module__.split('.')[0] == 'pyrua_primitives'
                and _key(obj) not in registry):
            continue
        registry[_key(obj)] = obj
        todo.extend(typing.get_type_hints(obj).values())
    return registry


def _key(cls: type) -> str:
    return f'{cls.__module__}.{cls.__qualname__}'


@functools.lru_cache(maxsize=None)
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


class _Budget:
    """The bytes a value may still take on the wire."""

    __slots__ = ('buffers', 'left', 'limit', 'what')

    def __init__(self, limit: int, what: str, buffers: list | None) -> None:
        self.left = limit
        self.limit = limit
        self.what = what
        self.buffers = buffers

    def take(self, size: int) -> None:
        self.left -= size
        if self.left < 0:
            raise WireTooLarge(f'{self.what} take more than {self.limit} bytes; pass less '
                               'data (e.g. a few numbers, not a whole array or image)')


def to_tree(value: Any, limit: int, what: str = 'the arguments',
            buffers: list | None = None) -> Any:
    """
    Return ``value`` as a msgpack-ready tree.

    :param value: the value to send.
    :param limit: the most bytes it may take on the wire (estimated while walking, so a
        huge value is refused after ``limit`` bytes' worth of work).
    :param what: how a refusal names the value, e.g. 'the arguments of robo.move_to'.
    :param buffers: if given, arrays of ``OUT_OF_BAND_BYTES`` or more are appended to it as
        byte views to send after the message, and the tree holds their index instead.
    :raises WireError: for a type that cannot cross, too deep a nesting, or over ``limit``.
    """
    return _encode(value, 0, _Budget(limit, what, buffers))


def _encode(value: Any, depth: int, budget: _Budget) -> Any:
    kind = type(value)
    if value is None or kind is bool or kind is float:
        budget.take(_ITEM_BYTES)
        return value
    if kind is int:
        if not _INT_MIN <= value <= _INT_MAX:
            raise WireError(f'the integer {value:.3e} does not fit in 64 bits; pass a float')
        budget.take(_ITEM_BYTES)
        return value
    if kind is bytes or kind is str and value.isascii():
        budget.take(len(value) + _ITEM_BYTES)
        return value
    if kind is str:
        # What it takes on the wire: UTF-8, at least a byte a character (checked first,
        # so a huge text is refused before it is encoded).
        budget.take(len(value) + _ITEM_BYTES)
        budget.take(len(value.encode('utf-8', 'surrogatepass')) - len(value))
        return value
    if depth >= MAX_DEPTH:
        raise WireError(f'a value nested deeper than {MAX_DEPTH} levels (or one that contains '
                        'itself) cannot be passed; flatten it')
    budget.take(_ITEM_BYTES)
    if kind is list or kind is tuple:
        tree = [LIST if kind is list else TUPLE]
        tree.extend(_encode(item, depth + 1, budget) for item in value)
        return tree
    if kind is dict:
        tree = [DICT]
        for key, item in value.items():
            tree.append(_encode(key, depth + 1, budget))
            tree.append(_encode(item, depth + 1, budget))
        return tree
    if isinstance(value, np.ndarray):
        dtype = value.dtype
        if dtype.name not in ARRAY_DTYPES or dtype.byteorder == '>':
            raise WireError(f'a numpy array of dtype {dtype} cannot be passed; use one of '
                            f'{", ".join(sorted(ARRAY_DTYPES))}')
        budget.take(value.nbytes)
        # A view of the pixels, not a copy.
        raw = memoryview(np.ascontiguousarray(value).reshape(-1).view(np.uint8))
        if budget.buffers is not None and value.nbytes >= OUT_OF_BAND_BYTES:
            budget.buffers.append(raw)
            return [ARRAY, dtype.name, len(budget.buffers) - 1, *value.shape]
        return [ARRAY, dtype.name, raw, *value.shape]
    if isinstance(value, np.generic) and value.dtype.name in ARRAY_DTYPES:
        return _encode(value.item(), depth, budget)
    key = _key(kind)
    if result_types().get(key) is kind:
        tree = [RESULT, key]
        tree.extend(_encode(getattr(value, name), depth + 1, budget)
                    for name in _field_names(kind))
        return tree
    raise WireError(f'{kind.__module__}.{kind.__qualname__} cannot be passed to a primitive')


def from_tree(tree: Any, buffers: list[bytearray] = ()) -> Any:
    """
    Rebuild a value from a tree that ``msgpack.unpackb`` returned.

    :param buffers: the raw buffers that came after the message (arrays refer to them).
    :raises WireError: for anything ``to_tree`` does not produce.
    """
    return _decode(tree, 0, buffers)


def _decode(tree: Any, depth: int, buffers: list[bytearray] = ()) -> Any:
    kind = type(tree)
    if tree is None or kind in (bool, int, float, str, bytes):
        return tree
    if kind is not list or not tree or depth >= MAX_DEPTH:
        raise WireError(f'not a plain-data tree at depth {depth}: {type(tree).__name__}')
    tag = tree[0]
    if tag == LIST:
        return [_decode(item, depth + 1, buffers) for item in tree[1:]]
    if tag == TUPLE:
        return tuple(_decode(item, depth + 1, buffers) for item in tree[1:])
    if tag == DICT:
        if len(tree) % 2 != 1:
            raise WireError('a dict with an odd number of keys and values')
        items = [_decode(item, depth + 1, buffers) for item in tree[1:]]
        try:
            return dict(zip(items[::2], items[1::2], strict=True))
        except TypeError as exc:
            raise WireError(f'a dict with an unhashable key: {exc}') from None
    if tag == ARRAY:
        return _decode_array(tree, buffers)
    if tag == RESULT:
        return _decode_result(tree, depth, buffers)
    raise WireError(f'unknown tag {tag!r} at depth {depth}')


def _decode_array(tree: list, buffers: list[bytearray]) -> np.ndarray:
    if len(tree) >= 3 and type(tree[2]) is int and 0 <= tree[2] < len(buffers):
        raw = buffers[tree[2]]
    elif len(tree) >= 3 and type(tree[2]) is bytes:
        raw = tree[2]
    else:
        raise WireError('an array needs a known dtype, its bytes and a shape')
    if tree[1] not in ARRAY_DTYPES:
        raise WireError(f'an array of dtype {str(tree[1])[:20]!r} is not allowed')
    shape = tree[3:]
    if not all(type(n) is int and n >= 0 for n in shape):
        raise WireError(f'an array shape must be non-negative integers, not {shape!r}')
    dtype = np.dtype(tree[1])
    count = 1
    for n in shape:
        count *= n
    if count * dtype.itemsize != len(raw):
        raise WireError(f'an array of shape {tuple(shape)} {dtype} needs '
                        f'{count * dtype.itemsize} bytes, not {len(raw)}')
    array = np.frombuffer(raw, dtype).reshape(shape)
    # Writable: a raw buffer is the receiver's own; inline bytes are copied.
    return array if isinstance(raw, bytearray) else array.copy()


def _decode_result(tree: list, depth: int, buffers: list[bytearray]) -> Any:
    cls = result_types().get(tree[1]) if len(tree) >= 2 and type(tree[1]) is str else None
    if cls is None:
        raise WireError(f'{str(tree[1:2])[:80]} is not a registered result type')
    names = _field_names(cls)
    if len(tree) != 2 + len(names):
        raise WireError(f'{tree[1]} has {len(names)} fields, not {len(tree) - 2}')
    obj = object.__new__(cls)
    for name, item in zip(names, tree[2:], strict=True):
        object.__setattr__(obj, name, _decode(item, depth + 1, buffers))
    return obj


def pack(message: list) -> bytes:
    """Return the msgpack bytes of one message (its value fields are trees already)."""
    return msgpack.packb(message, use_bin_type=True)


def unpack(data: bytes | bytearray | memoryview) -> Any:
    """
    Return what msgpack bytes hold, refusing maps and extension types.

    :raises WireError: if ``data`` is not one complete msgpack value of arrays and scalars.
    """
    try:
        return msgpack.unpackb(data, raw=False, use_list=True, strict_map_key=True,
                               object_pairs_hook=_refuse_map, ext_hook=_refuse_ext)
    except WireError:
        raise
    except Exception as exc:  # msgpack's own errors: truncated, extra bytes, bad UTF-8, depth
        raise WireError(f'not a valid message: {type(exc).__name__}: {exc}') from None


def _refuse_map(_pairs: Any) -> None:
    raise WireError('a msgpack map is not part of the protocol')


def _refuse_ext(code: int, _data: bytes) -> None:
    raise WireError(f'msgpack extension type {code} is not part of the protocol')

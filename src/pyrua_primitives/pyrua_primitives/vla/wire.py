"""
The openpi wire format: msgpack with numpy arrays as tagged maps (``msgpack_numpy``).

An array travels as ``{b'__ndarray__': True, b'data': bytes, b'dtype': str, b'shape': list}``
and a numpy scalar as ``{b'__npgeneric__': True, b'data': value, b'dtype': str}``, exactly as
``openpi_client.msgpack_numpy`` writes them, so this side talks to openpi servers and clients.
Object, void and complex arrays are refused both ways.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from ..errors import MissingDependency

_REFUSED_KINDS = ('V', 'O', 'c')
VLA_INSTALL = "pip install 'pyrua_primitives[vla]'  (msgpack, websockets)"


def require(module: str) -> Any:
    """
    Import and return ``module`` ('msgpack' or 'websockets.sync.client', ...).

    :raises MissingDependency: when the ``vla`` extra is not installed, with the pip command.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependency(f'{module} is not installed ({exc}); the VLA client needs '
                                f'it: {VLA_INSTALL}') from None


def _pack_default(obj: Any) -> Any:
    if isinstance(obj, (np.ndarray, np.generic)) and obj.dtype.kind in _REFUSED_KINDS:
        raise ValueError(f'array dtype {obj.dtype} vs numeric or bool; send plain numbers')
    if isinstance(obj, np.ndarray):
        return {b'__ndarray__': True, b'data': np.ascontiguousarray(obj).tobytes(),
                b'dtype': obj.dtype.str, b'shape': list(obj.shape)}
    if isinstance(obj, np.generic):
        return {b'__npgeneric__': True, b'data': obj.item(), b'dtype': obj.dtype.str}
    raise TypeError(f'cannot send {type(obj).__name__} over the policy protocol; send dicts, '
                    'lists, strings, numbers and numpy arrays')


def _unpack_hook(obj: dict) -> Any:
    if b'__ndarray__' in obj:
        dtype = np.dtype(obj[b'dtype'])
        if dtype.kind in _REFUSED_KINDS:
            raise ValueError(f'array dtype {dtype} vs numeric or bool')
        return np.frombuffer(obj[b'data'], dtype=dtype).reshape(obj[b'shape'])
    if b'__npgeneric__' in obj:
        return np.dtype(obj[b'dtype']).type(obj[b'data'])
    return obj


def pack(value: Any) -> bytes:
    """
    Encode ``value`` (nested dicts, lists, str, numbers, numpy arrays) as one message.

    :raises TypeError: for a value the protocol cannot carry.
    :raises MissingDependency: when msgpack is not installed.
    """
    return require('msgpack').packb(value, default=_pack_default)


def unpack(data: bytes) -> Any:
    """
    Decode one message; arrays come back as read-only numpy arrays.

    :raises ValueError: for bytes that are not a valid message.
    :raises MissingDependency: when msgpack is not installed.
    """
    msgpack = require('msgpack')
    try:
        return msgpack.unpackb(data, object_hook=_unpack_hook)
    except (msgpack.UnpackException, ValueError, TypeError, KeyError) as exc:
        raise ValueError(f'malformed policy message ({type(exc).__name__}: {exc})') from None

"""
Bounded texts and summaries of the values a cell hands the host, and of what it gets back.

What the model reads (``short_repr``, ``call_text``, ``failure_text``), what goes back to the
cell (``message_text``) and what the call records and the recording keep (``recorded``):
each is cut to a limit, never raises, and never expands an array element by element.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import wire
from .output import terminal_safe


def short_repr(value: Any, limit: int = 120) -> str:
    """Return a one-line repr of ``value`` of at most ``limit`` characters, arrays summarized."""
    if isinstance(value, np.ndarray):
        return f'<array {"x".join(map(str, value.shape))} {value.dtype}>'
    try:
        text = repr(value)
    except RecursionError:
        return f'<{type(value).__name__} nested too deeply to show>'
    except Exception as exc:  # a repr that fails is still a value to report
        return f'<{type(value).__name__} whose repr failed: {type(exc).__name__}>'
    text = terminal_safe(text.replace('\n', ' '))
    return text if len(text) <= limit else text[:limit - 3] + '...'


def recorded(value: Any, limit: int) -> Any:
    """
    Return ``value``, or a short summary string if it takes more than ``limit`` bytes.

    The size is estimated as the channel counts it, so a huge value costs at most ``limit``
    bytes' worth of work; arrays are summarised by shape and dtype.
    """
    try:
        wire.to_tree(value, limit)
        return value
    except wire.WireTooLarge:
        pass
    except wire.WireError:  # not plain data (a host-side object): the recording reprs it
        return value
    if isinstance(value, np.ndarray):
        what = f'array {"x".join(map(str, value.shape))} {value.dtype}'
    elif isinstance(value, (str, bytes, list, tuple, dict)):
        what = f'{type(value).__name__} of {len(value)} items'
    else:
        what = type(value).__name__
    return f'<{what}: over {limit} bytes, not recorded>'


def message_text(error: BaseException, limit: int = 65536) -> str:
    """Return ``str(error)`` for the cell, cut to ``limit`` characters; never raises."""
    try:
        text = str(error)
    except Exception:  # an exception whose str() fails
        return '<the message could not be formatted>'
    return text if len(text) <= limit else f'{text[:limit]}... [{len(text) - limit} cut]'


def failure_text(error: BaseException, limit: int = 500) -> str:
    """Return ``Type: message`` of a primitive's error, made safe and cut to ``limit``."""
    try:
        text = terminal_safe(f'{type(error).__name__}: {error}')
    except Exception:  # an exception whose str() fails
        text = f'{type(error).__name__}: <the message could not be formatted>'
    return text if len(text) <= limit else f'{text[:limit - 3]}...'


def call_text(name: str, args: tuple, kwargs: dict) -> str:
    """Return ``robo.name(args...)`` shortened for a message."""
    parts = [short_repr(a, 40) for a in args]
    parts += [f'{k}={short_repr(v, 40)}' for k, v in kwargs.items()]
    text = f'robo.{name}({", ".join(parts)})'
    return text if len(text) <= 100 else text[:97] + '...'

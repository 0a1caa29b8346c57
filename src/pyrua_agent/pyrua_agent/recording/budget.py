"""
How much one episode's recording may take, and the bounded summaries it falls back to.

A cell decides what the host records (its arguments, the texts its errors carry, how often
it captures a frame), so the recording has limits of its own: a value over
``value_bytes`` is recorded as a summary, a text over ``text_chars`` is cut saying so, and
past ``bag_bytes`` (bytes in the bag) or ``transcript_bytes`` (bytes in the transcript)
only summaries are written: the bag keeps its JSON records with every long text and large
value summarised and drops images and typed twins; the transcript keeps every record with
its long texts cut. The end record then says the recording was truncated, and at what.
Nothing here raises into the episode.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
import json
from typing import Any

import numpy as np

from . import convert
from .bag_writer import Entry
from ..runtime.limits import WorkerLimits
from ..runtime.values import recorded

# What one text or list keeps once the episode is past its budget.
SUMMARY_TEXT_CHARS = 200
SUMMARY_ITEMS = 16


@dataclass(frozen=True, kw_only=True)
class RecordingBudget:
    """
    The limits of one episode's recording; the defaults keep a normal episode whole.

    :param bag_bytes: bytes of serialized messages in the bag (a pick-and-place episode on
        the twin takes about 17 MB, mostly camera frames); past it, summaries only.
    :param transcript_bytes: bytes of the transcript's JSON lines; past it, summaries only.
    :param value_bytes: an argument larger than this is recorded as a summary
        (``WorkerLimits.recorded_arg_bytes``, the same limit as the cell's call records).
    :param text_chars: a result text or error message longer than this is cut, saying so.
    """

    bag_bytes: int = 1024 * 1024 * 1024
    transcript_bytes: int = 64 * 1024 * 1024
    value_bytes: int = WorkerLimits.recorded_arg_bytes
    text_chars: int = 2000

    def __post_init__(self) -> None:
        minimum = {'bag_bytes': 1024, 'transcript_bytes': 1024, 'value_bytes': 64,
                   'text_chars': 80}
        for f in fields(self):
            value = getattr(self, f.name)
            if type(value) is not int or value < minimum[f.name]:
                raise ValueError(f'RecordingBudget.{f.name}={value!r} vs minimum '
                                 f'{minimum[f.name]} (an integer); raise it')


def cut_text(text: str, limit: int) -> str:
    """Return ``text``, or its first ``limit`` characters and how many more were cut."""
    if len(text) <= limit:
        return text
    return f'{text[:limit]}... [{len(text) - limit} characters cut: over {limit}]'


def summarised(value: Any) -> Any:
    """
    Return a small version of a JSON-ready value: long texts cut, long lists summarised.

    The structure (keys, order) stays, so readers of a record find the fields they expect.
    """
    if isinstance(value, str):
        return cut_text(value, SUMMARY_TEXT_CHARS)
    if isinstance(value, dict):
        return {str(k): summarised(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if len(value) > SUMMARY_ITEMS:
            return {'summary': f'{type(value).__name__} of {len(value)} items: not recorded '
                               '(past the recording budget)'}
        return [summarised(v) for v in value]
    if isinstance(value, np.ndarray):
        return {'ndarray': {'shape': list(value.shape), 'dtype': str(value.dtype)}}
    return value


def repr_text(value: Any, limit: int) -> str:
    """Return ``repr(value)`` cut to ``limit`` characters; a repr that fails is named."""
    try:
        text = repr(value)
    except Exception as exc:  # includes RecursionError: a value is still a thing to record
        return f'<{type(value).__name__} whose repr failed: {type(exc).__name__}>'
    return cut_text(text, limit)


def recorded_fields(result: Any, limit: int) -> Any:
    """
    Return a result's fields as JSON types, each one over ``limit`` bytes summarised.

    Arrays keep ``convert.plain``'s summary by shape and dtype.
    """
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return {f.name: recorded_fields(getattr(result, f.name), limit)
                for f in dataclasses.fields(result)}
    if isinstance(result, np.ndarray):
        return convert.plain(result)
    return convert.plain(recorded(result, limit))


def summary_entry(store: Any, entry: Entry) -> Entry:
    """Return a JSON record with its long texts cut and long lists summarised."""
    topic, msgtype, message = entry
    record = summarised(json.loads(message.data))
    return (topic, msgtype, convert.json_message(store, {**record, 'truncated': True}))

"""Time stamps and headers: seconds <-> ``builtin_interfaces/Time`` and ``std_msgs/Header``."""

from __future__ import annotations

import math
from typing import Any

from .fields import MessageFactory

NS_PER_S = 1_000_000_000


def stamp_fields(stamp_s: float) -> dict[str, int]:
    """
    Return ``{'sec', 'nanosec'}`` for a time in seconds (nanosec always in 0..1e9-1).

    :raises ValueError: for a negative or non-finite time.
    """
    if not math.isfinite(stamp_s) or stamp_s < 0:
        raise ValueError(f'stamp {stamp_s} s vs minimum 0 s; ROS time is non-negative')
    total = round(stamp_s * NS_PER_S)
    return {'sec': total // NS_PER_S, 'nanosec': total % NS_PER_S}


def stamp_to_s(stamp: Any) -> float:
    """Return a ``builtin_interfaces/Time`` message as seconds."""
    return stamp.sec + stamp.nanosec / NS_PER_S


def make_header(make: MessageFactory, stamp_s: float, frame_id: str) -> Any:
    """Build a ``std_msgs/msg/Header`` stamped ``stamp_s`` in ``frame_id``."""
    stamp = make('builtin_interfaces/msg/Time', **stamp_fields(stamp_s))
    return make('std_msgs/msg/Header', stamp=stamp, frame_id=frame_id)

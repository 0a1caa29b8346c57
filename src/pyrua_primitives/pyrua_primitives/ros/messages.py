"""
The rclpy message factory: ``make(type_name, **fields)`` over the rosidl-generated classes.

The ROS-free conversions (``pyrua_primitives.conversions``) build messages through a
factory; this one imports the generated classes by their type name
(``'sensor_msgs/msg/Image'``, ``'pyrua_msgs/action/MoveTo_Goal'``,
``'pyrua_msgs/srv/ResetTask_Response'``).
"""

from __future__ import annotations

import array
import functools
import importlib
from typing import Any

import numpy as np


@functools.cache
def message_class(type_name: str) -> type:
    """
    Return the generated class of ``type_name``.

    :raises ImportError: when the interface package is not built or not sourced.
    """
    package, kind, name = type_name.split('/')
    module = importlib.import_module(f'{package}.{kind}')
    if kind == 'msg':
        return getattr(module, name)
    base, _, part = name.rpartition('_')
    return getattr(getattr(module, base), part)


def interface_class(type_name: str) -> type:
    """
    Return the generated action or service class (``'pyrua_msgs/action/MoveTo'``).

    :raises ImportError: when the interface package is not built or not sourced.
    """
    package, kind, name = type_name.split('/')
    return getattr(importlib.import_module(f'{package}.{kind}'), name)


def make(type_name: str, **fields: Any) -> Any:
    """Build a message of ``type_name`` with ``fields`` (uint8 arrays are copied as bytes)."""
    cls = message_class(type_name)
    message = cls()
    types = cls.get_fields_and_field_types()
    for name, value in fields.items():
        if isinstance(value, np.ndarray) and types[name] == 'sequence<uint8>':
            value = array.array('B', value.tobytes())
        setattr(message, name, value)
    return message

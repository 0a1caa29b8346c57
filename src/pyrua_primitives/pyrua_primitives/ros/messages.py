"""
The rclpy message factory: ``make(type_name, **fields)`` over the rosidl-generated classes.

The ROS-free conversions (``pyrua_primitives.conversions``) build messages through a
factory; this one imports the generated classes by their type name
(``'sensor_msgs/msg/Image'``, ``'pyrua_msgs/action/MoveTo_Goal'``,
``'pyrua_msgs/srv/ResetTask_Response'``).
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from ..conversions.field_types import rclpy_fields


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
    """
    Build a message of ``type_name`` with ``fields``, each in the form rclpy accepts.

    Numpy arrays in sequence fields become lists (``array('B')`` for bytes), so messages
    pass rclpy's field checks (``ROS_PYTHON_CHECK_FIELDS=1``); see
    ``conversions.field_types``.
    """
    cls = message_class(type_name)
    message = cls()
    for name, value in rclpy_fields(fields, cls.get_fields_and_field_types()).items():
        setattr(message, name, value)
    return message

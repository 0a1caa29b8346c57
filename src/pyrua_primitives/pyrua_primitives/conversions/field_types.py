"""
Field values in the types rclpy's generated setters accept, also with type checks on.

With ``ROS_PYTHON_CHECK_FIELDS=1`` a generated message checks each assignment: an unbounded
or bounded sequence of numbers must be an ``array.array`` of its typecode or a sequence of
Python numbers of the right kind (a numpy array is refused), a fixed-size array a numpy
array of its dtype and size (or such a sequence), a float field a Python ``float`` (an
``int`` is refused). The conversions build values with numpy; ``rclpy_value`` turns each
into the accepted form for the field's type string as ``get_fields_and_field_types()``
reports it (``'sequence<double>'``, ``'double[9]'``, ``'int32'``, ...). ``ros/messages.make``
applies it to every field it sets.
"""

from __future__ import annotations

import array
from collections.abc import Mapping
import re
from typing import Any

import numpy as np

FLOAT_TYPES = {'double': np.float64, 'float': np.float32}
INT_TYPES = {'int8': np.int8, 'uint8': np.uint8, 'int16': np.int16, 'uint16': np.uint16,
             'int32': np.int32, 'uint32': np.uint32, 'int64': np.int64, 'uint64': np.uint64,
             'octet': np.uint8, 'char': np.uint8}
"""rosidl primitive type -> numpy dtype."""
_SEQUENCE = re.compile(r'^sequence<([^,>]+)(?:,\s*\d+)?>$')
_ARRAY = re.compile(r'^([a-z0-9_]+)\[(\d+)\]$')


def _scalar(value: Any, element: str) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if element in FLOAT_TYPES and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if element in INT_TYPES and isinstance(value, (int, float)) and float(value).is_integer():
        return int(value)
    if element == 'boolean' and isinstance(value, (bool, np.bool_)):
        return bool(value)
    return value


def rclpy_value(value: Any, field_type: str) -> Any:
    """
    Return ``value`` in the form rclpy accepts for a field of ``field_type``.

    :param value: what a conversion produced (numpy arrays and scalars included).
    :param field_type: the rosidl type string, e.g. ``'sequence<double>'``.
    :returns: a list of Python numbers for a numeric sequence (bytes as ``array('B')``), a
        numpy array of the right dtype for a fixed-size array, a Python number for a scalar;
        anything else unchanged.
    """
    sequence = _SEQUENCE.match(field_type)
    if sequence is not None:
        element = sequence.group(1)
        if element in ('uint8', 'octet') and isinstance(value, (np.ndarray, bytes, bytearray)):
            return array.array('B', np.asarray(bytearray(value) if isinstance(
                value, (bytes, bytearray)) else value, dtype=np.uint8).tobytes())
        if isinstance(value, np.ndarray):
            value = value.reshape(-1).tolist()
        if isinstance(value, (list, tuple)):
            return [_scalar(v, element) for v in value]
        return value
    fixed = _ARRAY.match(field_type)
    if fixed is not None:
        element = fixed.group(1)
        dtype = FLOAT_TYPES.get(element) or INT_TYPES.get(element)
        if dtype is not None and isinstance(value, (np.ndarray, list, tuple)):
            return np.asarray(value, dtype=dtype).reshape(-1)
        if isinstance(value, (list, tuple)):
            return [_scalar(v, element) for v in value]
        return value
    return _scalar(value, field_type)


def rclpy_fields(fields: Mapping[str, Any], field_types: Mapping[str, str]) -> dict[str, Any]:
    """
    Return ``fields`` with every value in its accepted form (``rclpy_value``).

    :param fields: field name -> value.
    :param field_types: field name -> rosidl type string (``get_fields_and_field_types()``).
    :raises KeyError: for a field the message does not have, naming the valid ones.
    """
    unknown = sorted(set(fields) - set(field_types))
    if unknown:
        raise KeyError(f'fields {unknown} vs the message fields {sorted(field_types)}')
    return {name: rclpy_value(value, field_types[name]) for name, value in fields.items()}

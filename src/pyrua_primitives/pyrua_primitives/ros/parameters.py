"""
Config dataclasses <-> ROS parameters, with no ROS import (``params.py`` adds rclpy).

A node declares one parameter per leaf field of its config dataclass, nested dataclasses
giving dotted names (``library.motion.tcp_speed_m_s``, the YAML nesting). ROS parameters
are statically typed from their default and have no null, so (one rule each):

- float fields are declared with a float default (``1.0``, never ``1``);
- ``float | None`` is NaN when None, ``str | None`` is '' and ``int | None`` is 0;
- a tuple is a list of its element type and must not be empty (an empty list default is a
  BYTE_ARRAY parameter in rclpy).
"""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses
import math
import types
from typing import Any, get_args, get_origin, get_type_hints, Union

from ..naming import unknown_name

Value = bool | int | float | str | list


def _optional(hint: Any) -> Any | None:
    if get_origin(hint) in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return None


def _default(field: dataclasses.Field) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    raise TypeError(f'config field {field.name!r} has no default; every node parameter needs '
                    'one')


def _leaf(name: str, hint: Any, value: Any) -> Value:
    inner = _optional(hint)
    if inner is not None:
        if value is None:
            return {float: math.nan, str: '', int: 0}[inner]
        hint = inner
    if get_origin(hint) is tuple:
        kind = get_args(hint)[0]
        if not value:
            raise TypeError(f'parameter {name!r} has an empty tuple default; rclpy would '
                            'declare it BYTE_ARRAY, so give it a non-empty default')
        return [kind(v) for v in value]
    if hint in (bool, int, float, str):
        return hint(value)
    raise TypeError(f'parameter {name!r} of type {hint!r} has no ROS parameter form')


def parameter_defaults(cls: type, prefix: str = '') -> dict[str, Value]:
    """
    Return dotted parameter name -> typed default for every leaf of config ``cls``.

    :raises TypeError: for a field without a default or without a parameter form.
    """
    hints = get_type_hints(cls)
    out: dict[str, Value] = {}
    for field in dataclasses.fields(cls):
        hint, name = hints[field.name], f'{prefix}{field.name}'
        if dataclasses.is_dataclass(hint):
            out.update(parameter_defaults(hint, f'{name}.'))
        else:
            out[name] = _leaf(name, hint, _default(field))
    return out


def _from_leaf(hint: Any, value: Any) -> Any:
    inner = _optional(hint)
    if inner is not None:
        unset = math.isnan(value) if inner is float else value == {str: '', int: 0}[inner]
        if unset:
            return None
        hint = inner
    if get_origin(hint) is tuple:
        return tuple(get_args(hint)[0](v) for v in value)
    return hint(value)


def config_from_values(cls: type, values: Mapping[str, Any], prefix: str = '') -> Any:
    """
    Build config ``cls`` from dotted parameter values (missing names keep their defaults).

    :raises ValueError: from the dataclass's own validation, naming the field.
    """
    hints = get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        hint, name = hints[field.name], f'{prefix}{field.name}'
        if dataclasses.is_dataclass(hint):
            kwargs[field.name] = config_from_values(hint, values, f'{name}.')
        elif name in values:
            kwargs[field.name] = _from_leaf(hint, values[name])
    return cls(**kwargs)


def flatten(tree: Mapping[str, Any], prefix: str = '') -> dict[str, Any]:
    """Return nested YAML mappings as dotted names (``{'a': {'b': 1}}`` -> ``{'a.b': 1}``)."""
    out: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, Mapping):
            out.update(flatten(value, f'{prefix}{key}.'))
        else:
            out[f'{prefix}{key}'] = value
    return out


def check_overrides(cls: type, overrides: Mapping[str, Any]) -> list[str]:
    """
    Return the problems of parameter overrides (a YAML ``ros__parameters`` block) for ``cls``.

    Unknown names get a "did you mean"; a value whose type differs from the declared one is
    named with both types (rclpy refuses ``1`` for a float parameter, and vice versa).
    """
    defaults = parameter_defaults(cls)
    defaults['use_sim_time'] = False  # every rclpy node declares it
    problems = []
    for name, value in flatten(overrides).items():
        if name not in defaults:
            problems.append(unknown_name('parameter', name, defaults))
            continue
        want = defaults[name]
        if type(value) is not type(want):
            problems.append(f'parameter {name!r} is {type(value).__name__} {value!r} vs '
                            f'declared {type(want).__name__} (default {want!r}); write the '
                            'value as that type')
        elif isinstance(want, list) and {type(v) for v in value} != {type(want[0])}:
            problems.append(f'parameter {name!r} list items {value!r} vs '
                            f'{type(want[0]).__name__} items')
    return problems

"""
The goal <-> keyword arguments mapping of each action primitive, derived, never spelled.

A primitive served as an action (``@primitive(action='MoveTo')``) travels as that action's
Goal: each of its parameters (but the runtime's ``cancel``/``feedback``) is the Goal field
of the same name, and the goal fields it implies (``close_gripper``: ``action='close'``)
are filled from its declaration. ``goal_mappings`` builds one ``GoalMapping`` per primitive
from the ``.action`` file's Goal fields (parsed by ``rosbags``, ``interfaces.message_fields``)
and the primitive's signature, and refuses a mismatch naming the field: a parameter without
a Goal field, or a Goal field no primitive of the action takes.

Value rules (the message rules of ``conversions.fields``, for arguments):

- ``string``: ``str``; None is ''. ``float64``: ``float``; None is NaN. ``bool``, ints: as is.
- ``float64[N]``: N numbers (None: N NaNs); another count is refused. ``string[]``: a list
  of strings (None: empty); a bare string or an empty list where the default is None
  (the empty list means None) is refused.
- Back from a goal, the field's empty value ('', NaN, all NaN, empty list) is the parameter's
  default when it has one (a hand-written goal may leave ``path`` or ``heading`` out).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
import inspect
import math
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from .interfaces import message_fields, MessageField
from ..arguments import RUNTIME_KEYWORDS
from ..naming import unknown_name
from ..registry import action_type, ActionType, PrimitiveInfo

_FLOATS = ('float32', 'float64')
_INTS = ('byte', 'char', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64',
         'uint64')
_KINDS = ('string', 'bool', *_FLOATS, *_INTS)
_NO_DEFAULT = inspect.Parameter.empty


def _dtype(kind: str) -> np.dtype:
    return np.dtype({'byte': 'uint8', 'char': 'uint8'}.get(kind, kind))


def _absent(f: MessageField) -> Any:
    """Return the value of a field no argument fills ('', NaN, False, 0, empty)."""
    if f.size is None:
        if f.kind in ('string', 'bool'):
            return {'string': '', 'bool': False}[f.kind]
        return math.nan if f.kind in _FLOATS else 0
    if f.kind == 'string':
        return []
    return np.full(f.size, math.nan if f.kind in _FLOATS else 0, dtype=_dtype(f.kind))


@dataclass(frozen=True, slots=True)
class GoalMapping:
    """
    How one primitive's call travels in its action's Goal and back.

    :param primitive: the ``robo.<name>``.
    :param action: the action type serving it.
    :param fields: the Goal's fields, in ``.action`` order.
    :param parameters: the primitive's parameters that travel, in signature order.
    :param implied: goal fields the primitive implies (``{'action': 'close'}``).
    :param defaults: parameter -> its default, for the parameters that have one.
    """

    primitive: str
    action: ActionType
    fields: tuple[MessageField, ...]
    parameters: tuple[str, ...]
    implied: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return (f'GoalMapping({self.primitive} -> {self.action.name}, '
                f'parameters={list(self.parameters)}, implied={dict(self.implied)})')

    def goal_fields(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """
        Return the Goal's field values of a call (see the module's value rules).

        :param arguments: the call's arguments by parameter name; a missing one takes the
            parameter's default.
        :raises TypeError: for an argument the goal cannot carry, or a missing one without
            a default, naming it.
        :raises ValueError: for a value of the wrong size, naming the field.
        """
        extra = sorted(set(arguments) - set(self.parameters))
        if extra:
            raise TypeError(f'{self.primitive}() argument(s) {extra} cannot travel in a '
                            f'{self.action.name} goal; call {self.primitive} without them '
                            'over ROS')
        out = {}
        for f in self.fields:
            if f.name in self.implied:
                out[f.name] = self.implied[f.name]
            elif f.name not in self.parameters:
                out[f.name] = _absent(f)
            elif f.name in arguments:
                out[f.name] = self._to_field(f, arguments[f.name])
            elif f.name in self.defaults:
                out[f.name] = self._to_field(f, self.defaults[f.name])
            else:
                raise TypeError(f'{self.primitive}() missing argument {f.name!r} for its '
                                f'{self.action.name} goal; pass it')
        return out

    def _to_field(self, f: MessageField, value: Any) -> Any:
        if f.size is None:
            if value is None:
                if f.kind in ('bool', *_INTS):
                    raise TypeError(f'{self.primitive}() argument {f.name}=None vs a '
                                    f'{f.kind}; the {self.action.name} goal has no None for it')
                return _absent(f)
            if f.kind == 'string':
                return str(value)
            if f.kind == 'bool':
                return bool(value)
            return float(value) if f.kind in _FLOATS else int(value)
        if value is None:
            return _absent(f)
        if isinstance(value, (str, bytes)):
            raise TypeError(f'{self.primitive}() argument {f.name}={value!r} vs a list; write '
                            f'{f.name}=[{value!r}]')
        if f.kind == 'string':
            items = [str(v) for v in value]
            if not items and self.defaults.get(f.name, _NO_DEFAULT) is None:
                raise ValueError(f'{self.primitive}() argument {f.name}=[] vs at least one '
                                 f'item: an empty list travels as None; pass None or name one')
            return items
        array = np.asarray(value, dtype=_dtype(f.kind)).reshape(-1)
        if f.size and array.size != f.size:
            raise ValueError(f'{f.name} of {array.size} numbers vs {f.size}; pass exactly '
                             f'{f.size} ({self.primitive} goal field {f.name})')
        return array

    def kwargs(self, goal: Any) -> dict[str, Any]:
        """Return the primitive's keyword arguments of a received goal message."""
        return {name: self._from_field(self._field(name), getattr(goal, name))
                for name in self.parameters}

    def _field(self, name: str) -> MessageField:
        return next(f for f in self.fields if f.name == name)

    def _from_field(self, f: MessageField, value: Any) -> Any:
        default = self.defaults.get(f.name, _NO_DEFAULT)
        if f.size is None:
            if f.kind == 'string':
                value = str(value)
                empty = value == ''
            elif f.kind == 'bool':
                return bool(value)
            elif f.kind in _INTS:
                return int(value)
            else:
                value = float(value)
                empty = math.isnan(value)
        else:
            kind = str if f.kind == 'string' else float if f.kind in _FLOATS else int
            value = tuple(kind(v) for v in value)
            empty = (not value or (kind is float and f.size > 0
                                   and all(math.isnan(v) for v in value)))
        return default if empty and default is not _NO_DEFAULT else value

    def matches(self, goal: Any) -> bool:
        """Return True when ``goal`` carries this primitive's implied fields."""
        return all(str(getattr(goal, k)) == v for k, v in self.implied.items())


def build_mapping(info: PrimitiveInfo, fields: Sequence[MessageField]) -> GoalMapping:
    """
    Return the mapping of one primitive from its declaration and its action's Goal fields.

    :param info: the primitive's declaration (``@primitive(action=...)``).
    :param fields: the Goal's fields (``message_fields('pyrua_msgs/action/<A>_Goal')``).
    :raises ValueError: for a parameter without a Goal field, an implied field the Goal
        lacks, or a field kind a call cannot fill, naming it.
    """
    if info.action is None or info.signature is None:
        raise ValueError(f'{info.name} is not served as an action (action={info.action!r}, '
                         f'signature={info.signature}); declare @primitive(action=...)')
    kind = action_type(info.action)
    where = f'src/pyrua_msgs/action/{kind.name}.action'
    by_name = {f.name: f for f in fields}
    for f in fields:
        if f.kind not in _KINDS:
            raise ValueError(f'{kind.name}.action Goal field {f.name!r} of type {f.kind} vs '
                             f'one of {_KINDS} (arrays of them too); a call cannot fill it')
    parameters, defaults = [], {}
    for p in info.signature.parameters.values():
        if p.name == 'self' or p.name in RUNTIME_KEYWORDS:
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError(f'{info.name}() parameter {p} cannot travel in a {kind.name} '
                             'goal; name each parameter')
        if p.name not in by_name:
            raise ValueError(f'{info.name}() parameter {p.name!r} has no field in '
                             f"{kind.name}.action's Goal {sorted(by_name)}; add the field to "
                             f'{where} or drop the parameter')
        parameters.append(p.name)
        if p.default is not _NO_DEFAULT:
            defaults[p.name] = p.default
    for name, value in info.goal.items():
        f = by_name.get(name)
        if f is None or f.kind != 'string' or f.size is not None or name in parameters:
            raise ValueError(f'{info.name} implies goal field {name}={value!r} vs a string '
                             f"field of {kind.name}.action's Goal that is no parameter; fix "
                             f'the @primitive(goal=...) or {where}')
    return GoalMapping(primitive=info.name, action=kind, fields=tuple(fields),
                       parameters=tuple(parameters),
                       implied=MappingProxyType(dict(info.goal)),
                       defaults=MappingProxyType(defaults))


def goal_mappings(primitives: Mapping[str, PrimitiveInfo],
                  root: Path | None = None) -> Mapping[str, GoalMapping]:
    """
    Return primitive name -> GoalMapping for every primitive served as an action.

    :param primitives: the primitive registry (``library.PRIMITIVES``).
    :param root: the ``pyrua_msgs`` directory (default: ``interfaces.interface_dir()``).
    :raises ValueError: for a mismatch between a ``.action`` Goal and the primitives it
        serves, naming the field (see ``build_mapping``), a Goal field none of them takes,
        or two primitives of one action a goal cannot tell apart.
    """
    by_action: dict[str, list[PrimitiveInfo]] = {}
    for info in primitives.values():
        if info.action is not None:
            by_action.setdefault(info.action, []).append(info)
    out: dict[str, GoalMapping] = {}
    for action, infos in by_action.items():
        fields = message_fields(action_type(action).type_name('Goal'), root)
        mappings = [build_mapping(info, fields) for info in infos]
        taken = {n for m in mappings for n in (*m.parameters, *m.implied)}
        for f in fields:
            if f.name not in taken:
                raise ValueError(f'{action}.action Goal field {f.name!r} is taken by none of '
                                 f'{[i.name for i in infos]} (no parameter, no implied field); '
                                 'add it to the primitive or remove it from the .action')
        implied = [dict(m.implied) for m in mappings]
        if len(mappings) > 1 and (not all(implied) or len({tuple(sorted(i.items()))
                                                           for i in implied}) < len(implied)):
            raise ValueError(f'{action} serves {[m.primitive for m in mappings]} with implied '
                             f'goal fields {implied}; give each a distinct '
                             '@primitive(goal=...) so a goal names its primitive')
        out.update((m.primitive, m) for m in mappings)
    return MappingProxyType(out)


def primitive_of_goal(mappings: Sequence[GoalMapping], goal: Any) -> GoalMapping:
    """
    Return the mapping among one action's ``mappings`` whose implied fields ``goal`` carries.

    :raises ValueError: when none matches, naming the implied field and its valid values.
    """
    for mapping in mappings:
        if mapping.matches(goal):
            return mapping
    keys = sorted({k for m in mappings for k in m.implied})
    key = keys[0] if keys else '?'
    action = mappings[0].action.ros_name if mappings else '?'
    raise ValueError(unknown_name(f'{action} {key}', getattr(goal, key, None),
                                  [m.implied.get(key, '') for m in mappings]))

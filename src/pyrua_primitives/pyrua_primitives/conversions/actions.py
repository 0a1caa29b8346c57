"""
Primitive calls <-> ``pyrua_msgs`` action goals, results and feedback.

One table, ``ACTIONS``, read from the primitive registry (``@primitive(action=...)`` where
each primitive is defined), says which primitives travel as ROS 2 actions and under which
action type; the primitives node serves exactly these and the agent's action transport
sends exactly these. Every other primitive (pose, joints, image, ...) is a read of the
station that the agent node answers from its own ROS station.

An aborted goal carries the primitive's exception in ``reason`` as
``'<ExceptionType>: <message>'`` (misuse raises, DESIGN.md); ``raise_from_reason`` turns
it back into that exception on the caller's side.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
import importlib
import math
from typing import Any

import numpy as np

from .fields import from_message, MessageFactory, to_fields
from ..errors import PrimitiveError
from ..library import PRIMITIVES
from ..naming import unknown_name


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """A primitive served as an action: its action type and result dataclass."""

    action: str
    """Action type name in ``pyrua_msgs/action``, e.g. ``'MoveTo'``."""
    result: str
    """Import path of the result dataclass, ``'module:Class'``."""
    feedback: bool
    """True when the primitive is long and reports progress."""

    def type_name(self, part: str) -> str:
        """Return the message type name of ``part`` ('Goal', 'Result' or 'Feedback')."""
        return f'pyrua_msgs/action/{self.action}_{part}'

    def result_class(self) -> type:
        """
        Import and return the result dataclass.

        :raises ImportError: when the module that defines it is not installed.
        """
        module, name = self.result.split(':')
        return getattr(importlib.import_module(module), name)


ACTION_RESULTS: dict[str, tuple[str, bool]] = {
    'Gripper': ('pyrua_primitives.results:GripperResult', True),
    'Locate': ('pyrua_primitives.perception.locate:LocateResult', False),
    'MoveTo': ('pyrua_primitives.results:MoveResult', True),
    'VlaRollout': ('pyrua_primitives.vla:VlaResult', True),
}
"""Action type -> (result dataclass, has feedback)."""

ACTIONS: dict[str, ActionSpec] = {
    name: ActionSpec(info.action, *ACTION_RESULTS[info.action])
    for name, info in PRIMITIVES.items() if info.action is not None}
"""Primitive name -> action, from the primitive registry (``@primitive(action=...)``).
``open_gripper`` and ``close_gripper`` share ``Gripper``."""

EXCEPTIONS: dict[str, type[Exception]] = {
    'ValueError': ValueError,
    'TypeError': TypeError,
    'KeyError': KeyError,
    'PrimitiveError': PrimitiveError,
}
"""Exceptions re-raised by type on the caller's side; any other becomes PrimitiveError."""


def action_spec(primitive: str) -> ActionSpec:
    """
    Return the action spec of ``primitive``.

    :raises KeyError: for a primitive that is not served as an action, listing those that are.
    """
    if primitive not in ACTIONS:
        raise KeyError(unknown_name('action primitive', primitive, ACTIONS))
    return ACTIONS[primitive]


def _nan_if_none(value: Any) -> float:
    return math.nan if value is None else float(value)


def _none_if_nan(value: Any) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def _xyz(value: Any) -> np.ndarray:
    xyz = np.asarray(value, dtype=np.float64).reshape(-1)
    if xyz.size != 3:
        raise ValueError(f'xyz of {xyz.size} numbers vs 3 (x, y, z) metres')
    return xyz


def goal_fields(primitive: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """
    Return the goal fields of a call, from its bound arguments (name -> value).

    :param primitive: a name in ``ACTIONS``.
    :param arguments: the call's arguments by parameter name (defaults applied).
    :raises TypeError: for an argument the goal cannot carry, naming it.
    """
    spec = action_spec(primitive)
    args = dict(arguments)
    if spec.action == 'Locate':
        cameras = args.pop('cameras', None)
        fields = {'query': str(args.pop('query')),
                  'cameras': [] if cameras is None else [str(c) for c in cameras]}
    elif spec.action == 'MoveTo':
        fields = {'arm': str(args.pop('arm')), 'xyz': _xyz(args.pop('xyz')),
                  'heading': _nan_if_none(args.pop('heading', None)),
                  'descend': bool(args.pop('descend', False)),
                  'max_tilt': float(args.pop('max_tilt', 0.0)),
                  'path': str(args.pop('path', 'line')),
                  'relative': bool(args.pop('relative', False))}
    elif spec.action == 'Gripper':
        fields = {'arm': str(args.pop('arm')), 'action': PRIMITIVES[primitive].goal['action'],
                  'width': _nan_if_none(args.pop('width', None))}
    else:
        fields = {'instruction': str(args.pop('instruction')), 'arm': str(args.pop('arm')),
                  'steps': int(args.pop('steps'))}
    if args:
        raise TypeError(f'{primitive}() argument(s) {sorted(args)} cannot travel in a '
                        f'{spec.action} goal; call {primitive} without them over ROS')
    return fields


def call_from_goal(action: str, goal: Any) -> tuple[str, dict[str, Any]]:
    """
    Return (primitive name, keyword arguments) of a received goal message.

    :param action: the action type name, e.g. ``'MoveTo'``.
    :param goal: the goal message.
    :raises ValueError: for an unknown action or a Gripper goal whose action is not
        'open' or 'close'.
    """
    if action == 'Locate':
        cameras = tuple(str(c) for c in goal.cameras)
        return 'locate', {'query': str(goal.query), 'cameras': cameras or None}
    if action == 'MoveTo':
        return 'move_to', {'arm': str(goal.arm), 'xyz': tuple(float(v) for v in goal.xyz),
                           'heading': _none_if_nan(goal.heading), 'descend': bool(goal.descend),
                           'max_tilt': float(goal.max_tilt), 'path': str(goal.path) or 'line',
                           'relative': bool(goal.relative)}
    if action == 'Gripper':
        if goal.action == 'open':
            return 'open_gripper', {'arm': str(goal.arm), 'width': _none_if_nan(goal.width)}
        if goal.action == 'close':
            return 'close_gripper', {'arm': str(goal.arm)}
        raise ValueError(unknown_name('gripper action', goal.action, ('open', 'close')))
    if action == 'VlaRollout':
        return 'vla', {'instruction': str(goal.instruction), 'arm': str(goal.arm),
                       'steps': int(goal.steps)}
    raise ValueError(unknown_name('action', action, sorted({s.action for s in ACTIONS.values()})))


def result_to_message(primitive: str, value: Any, make: MessageFactory) -> Any:
    """Build the action result message mirroring the primitive's result dataclass."""
    spec = action_spec(primitive)
    return make(spec.type_name('Result'), **to_fields(value))


def result_from_message(primitive: str, message: Any) -> Any:
    """Return the primitive's result dataclass from an action result message."""
    return from_message(action_spec(primitive).result_class(), message)


STATUS_SUCCEEDED = 4
STATUS_CANCELED = 5
STATUS_ABORTED = 6
"""``action_msgs/GoalStatus`` values a finished goal can have."""


def goal_value(primitive: str, status: int, result: Any, error: str = '') -> Any:
    """
    Return what the primitive returned, from a finished goal (the caller's side).

    A succeeded or canceled goal carries the primitive's result (a cancelled motion still
    reports where it stopped); an aborted goal re-raises the primitive's exception.

    :param primitive: the primitive the goal ran.
    :param status: the final ``action_msgs/GoalStatus`` value.
    :param result: the result message, or None when none came back.
    :param error: why no result came back.
    :raises Exception: the primitive's exception (see ``raise_from_reason``), or
        PrimitiveError when the goal failed without a result.
    """
    if result is None:
        raise PrimitiveError(f'{primitive} goal failed: {error or "no result"}')
    if status == STATUS_ABORTED:
        raise_from_reason(primitive, str(result.reason))
    if status not in (STATUS_SUCCEEDED, STATUS_CANCELED):
        raise PrimitiveError(f'{primitive} goal ended with status {status} vs succeeded, '
                             'canceled or aborted; the action server broke the protocol')
    return result_from_message(primitive, result)


def error_reason(error: BaseException) -> str:
    """Return the ``reason`` an aborted goal carries for the primitive's exception."""
    return f'{type(error).__name__}: {error}'


def raise_from_reason(primitive: str, reason: str) -> None:
    """
    Raise the exception an aborted goal reported in its ``reason``.

    :raises Exception: the named type when it is in ``EXCEPTIONS``, else PrimitiveError.
    """
    name, _, message = reason.partition(': ')
    kind = EXCEPTIONS.get(name)
    if kind is None:
        raise PrimitiveError(f'{primitive} goal aborted by the primitives node: '
                             f'{reason or "no reason given"}')
    raise kind(message)


FEEDBACK_DEFAULTS: dict[str, dict[str, Any]] = {
    'MoveTo': {'stage': '', 'fraction': math.nan, 'elapsed_s': 0.0},
    'Gripper': {'width_m': math.nan, 'elapsed_s': 0.0},
    'VlaRollout': {'step': 0, 'elapsed_s': 0.0},
}
_SCALAR_FEEDBACK = {'MoveTo': 'fraction', 'Gripper': 'width_m', 'VlaRollout': 'step'}


def feedback_fields(primitive: str, value: Any, elapsed_s: float) -> dict[str, Any]:
    """
    Return the feedback fields for one progress value a primitive reported.

    A mapping fills the fields it names; a number fills the action's scalar field
    (MoveTo ``fraction``, Gripper ``width_m``, VlaRollout ``step``); a string fills
    MoveTo's ``stage``.

    :raises TypeError: for a value of another kind or a mapping naming unknown fields.
    """
    action = action_spec(primitive).action
    if action not in FEEDBACK_DEFAULTS:
        raise TypeError(f'{action} has no feedback; {primitive} must not report progress')
    fields = dict(FEEDBACK_DEFAULTS[action], elapsed_s=float(elapsed_s))
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - set(fields))
        if unknown:
            raise TypeError(f'{action} feedback has no fields {unknown}; it has {sorted(fields)}')
        fields.update(value)
    elif isinstance(value, str) and action == 'MoveTo':
        fields['stage'] = value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        scalar = _SCALAR_FEEDBACK[action]
        fields[scalar] = type(fields[scalar])(value)
    else:
        raise TypeError(f'{primitive} feedback {value!r} vs a number, a mapping of '
                        f'{sorted(fields)}' + (' or a stage string' if action == 'MoveTo' else ''))
    return fields

"""
Primitive calls <-> ``pyrua_msgs`` action goals, results and feedback.

``ACTIONS`` (primitive name -> ``registry.ActionType``) is read from the primitive registry
(``@primitive(action=...)`` where each primitive is defined) and the action type registry
(``registry.ACTION_TYPES``); the primitives node serves exactly these and the agent's action
transport sends exactly these. Every other primitive (pose, joints, image, ...) is a read of
the station that the agent node answers from its own ROS station. What a goal and a feedback
message carry comes from the ``.action`` files themselves (``goal_mapping``), never from a
table here.

An aborted goal carries the primitive's exception in ``reason`` as
``'<ExceptionType>: <message>'`` (misuse raises, DESIGN.md); ``raise_from_reason`` turns
it back into that exception on the caller's side.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
import functools
from typing import Any

from .fields import from_message, MessageFactory, to_fields
from .goal_mapping import goal_mappings, GoalMapping, primitive_of_goal
from .interfaces import message_fields, MessageField
from ..errors import PrimitiveError
from ..library import PRIMITIVES
from ..naming import unknown_name
from ..registry import action_type, ActionType

ACTIONS: Mapping[str, ActionType] = {
    name: action_type(info.action) for name, info in PRIMITIVES.items()
    if info.action is not None}
"""Primitive name -> action type, from the primitive registry (``@primitive(action=...)``).
``open_gripper`` and ``close_gripper`` share ``Gripper``."""

EXCEPTIONS: dict[str, type[Exception]] = {
    'ValueError': ValueError,
    'TypeError': TypeError,
    'KeyError': KeyError,
    'PrimitiveError': PrimitiveError,
}
"""Exceptions re-raised by type on the caller's side; any other becomes PrimitiveError."""


def action_spec(primitive: str) -> ActionType:
    """
    Return the action type serving ``primitive``.

    :raises KeyError: for a primitive that is not served as an action, listing those that are.
    """
    if primitive not in ACTIONS:
        raise KeyError(unknown_name('action primitive', primitive, ACTIONS))
    return ACTIONS[primitive]


def served_actions(primitives: Iterable[str]) -> tuple[ActionType, ...]:
    """Return the action types serving any of ``primitives``, sorted by name."""
    names = {ACTIONS[p].name for p in primitives if p in ACTIONS}
    return tuple(action_type(n) for n in sorted(names))


@functools.cache
def _mappings() -> Mapping[str, GoalMapping]:
    return goal_mappings(PRIMITIVES)


def goal_mapping(primitive: str) -> GoalMapping:
    """
    Return the goal mapping of ``primitive``, derived from its ``.action`` file (cached).

    :raises KeyError: for a primitive that is not served as an action, listing those that are.
    :raises ValueError: when the ``.action`` Goal and the primitives disagree, naming the
        field.
    """
    action_spec(primitive)
    return _mappings()[primitive]


def goal_fields(primitive: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """
    Return the goal fields of a call, from its bound arguments (name -> value).

    :param primitive: a name in ``ACTIONS``.
    :param arguments: the call's arguments by parameter name (defaults applied).
    :raises TypeError: for an argument the goal cannot carry, naming it.
    """
    return goal_mapping(primitive).goal_fields(arguments)


def call_from_goal(action: str, goal: Any) -> tuple[str, dict[str, Any]]:
    """
    Return (primitive name, keyword arguments) of a received goal message.

    :param action: the action type name, e.g. ``'MoveTo'``.
    :param goal: the goal message.
    :raises ValueError: for an unknown action or a goal whose implied field names no
        primitive (a Gripper goal whose action is not 'open' or 'close').
    """
    served = [m for m in _mappings().values() if m.action.name == action]
    if not served:
        raise ValueError(unknown_name('action', action, {a.name for a in ACTIONS.values()}))
    mapping = primitive_of_goal(served, goal)
    return mapping.primitive, mapping.kwargs(goal)


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


@functools.cache
def _feedback(action: str) -> tuple[MessageField, ...]:
    """Return the Feedback fields of ``action``, checked against its ``feedback`` flag."""
    kind = action_type(action)
    fields = message_fields(kind.type_name('Feedback'))
    names = [f.name for f in fields]
    if bool(fields) != kind.feedback or (fields and 'elapsed_s' not in names):
        raise ValueError(f'{action}.action Feedback fields {names} vs ActionType '
                         f'feedback={kind.feedback}; a feedback action has fields, elapsed_s '
                         'among them, and one without has none')
    return fields


def feedback_fields(primitive: str, value: Any, elapsed_s: float) -> dict[str, Any]:
    """
    Return the feedback fields for one progress value a primitive reported.

    A mapping fills the fields it names; a number fills the action's one numeric field
    besides ``elapsed_s`` (MoveTo ``fraction``, Gripper ``width_m``, VlaRollout ``step``); a
    string fills its one string field (MoveTo's ``stage``). Unfilled fields are '' or NaN
    (0 for an integer).

    :raises TypeError: for a value of another kind or a mapping naming unknown fields.
    """
    action = action_spec(primitive).name
    if not action_spec(primitive).feedback:
        raise TypeError(f'{action} has no feedback; {primitive} must not report progress')
    feedback = _feedback(action)
    fields: dict[str, Any] = {
        f.name: '' if f.kind == 'string' else float('nan') if f.kind.startswith('float') else 0
        for f in feedback}
    fields['elapsed_s'] = float(elapsed_s)
    text = [f.name for f in feedback if f.kind == 'string' and f.size is None]
    numbers = [f.name for f in feedback if f.kind != 'string' and f.size is None
               and f.name != 'elapsed_s']
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - set(fields))
        if unknown:
            raise TypeError(f'{action} feedback has no fields {unknown}; it has {sorted(fields)}')
        fields.update(value)
    elif isinstance(value, str) and len(text) == 1:
        fields[text[0]] = value
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and len(numbers) == 1:
        fields[numbers[0]] = type(fields[numbers[0]])(value)
    else:
        raise TypeError(f'{primitive} feedback {value!r} vs a number, a mapping of '
                        f'{sorted(fields)}' + (f' or a {text[0]} string' if text else ''))
    return fields

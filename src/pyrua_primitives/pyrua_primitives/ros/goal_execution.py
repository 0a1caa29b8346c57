"""
Run one received action goal on a primitive, ROS-free (the primitives node's execute step).

``execute_goal`` turns the goal message into the primitive's keyword arguments, hands the
primitive the goal's cancel token and a feedback sink when it declares them (the same
keyword-only ``cancel``/``feedback`` contract as the in-process transport), and returns the
value or the exception as the ``reason`` an aborted goal carries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
import inspect
import time
from typing import Any

from pyrua_primitives.cancel import CancelToken
from pyrua_primitives.conversions.actions import call_from_goal, error_reason, feedback_fields
from pyrua_primitives.errors import PrimitiveError
from pyrua_primitives.naming import unknown_name


@dataclass(frozen=True, slots=True)
class GoalOutcome:
    """What a goal produced: the primitive's result, or the reason it was aborted."""

    primitive: str
    value: Any
    error: str
    """``'<ExceptionType>: <message>'`` when the primitive raised, else ''."""


def _keyword_only(func: Callable[..., Any]) -> set[str]:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return set()
    return {n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}


def execute_goal(action: str, goal: Any, primitives: Mapping[str, Callable[..., Any]],
                 cancel: CancelToken,
                 publish_feedback: Callable[[dict[str, Any]], None]) -> GoalOutcome:
    """
    Run the primitive a goal names and return its outcome.

    :param action: the action type name (``'MoveTo'``).
    :param goal: the received goal message.
    :param primitives: primitive name -> callable (``PrimitiveLibrary.primitives()``).
    :param cancel: the goal's token, cancelled by the node's cancel callback.
    :param publish_feedback: sends one feedback message built from these fields.
    :returns: the outcome; misuse (a bad goal, the primitive raising) is an error string.
    """
    try:
        name, kwargs = call_from_goal(action, goal)
    except ValueError as exc:
        return GoalOutcome(action, None, error_reason(exc))
    func = primitives.get(name)
    if func is None:
        return GoalOutcome(name, None, error_reason(PrimitiveError(
            unknown_name('primitive on this node', name, primitives))))
    started = time.monotonic()
    takes = _keyword_only(func)
    if 'cancel' in takes:
        kwargs['cancel'] = cancel
    if 'feedback' in takes:
        kwargs['feedback'] = lambda value: publish_feedback(
            feedback_fields(name, value, time.monotonic() - started))
    try:
        return GoalOutcome(name, func(**kwargs), '')
    except Exception as exc:  # misuse: the caller re-raises it from the aborted goal's reason
        return GoalOutcome(name, None, error_reason(exc))

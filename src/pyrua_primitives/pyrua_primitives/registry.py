"""
The primitive registry: whether each primitive acts, and which action serves it over ROS.

Each primitive declares both where it is defined:
``@primitive(acting=True, action='MoveTo')`` on a ``PrimitiveLibrary`` method makes it a
``robo.<name>`` primitive; ``declared_primitives`` reads the marks in definition order.
Everything that needs these facts reads them from here: ``robo``'s primitives, the success
guard's acting set, the tool-calling baseline's pictures after motions, the ROS action
servers and the agent's action transport (``conversions.actions.ACTIONS``), and the typed
goals of a recording.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

ACTION_TYPES = ('Gripper', 'Locate', 'MoveTo', 'VlaRollout')
"""The ``pyrua_msgs/action`` types a primitive may be served by."""

F = TypeVar('F', bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class PrimitiveInfo:
    """
    What one primitive declares about itself.

    :param name: the ``robo.<name>``.
    :param acting: it acts on the robot (the success guard runs before it; the evaluator
        observes after it; the tool-calling baseline returns pictures after it).
    :param action: the ``pyrua_msgs`` action type serving it over ROS, or None for a read
        of the station that the agent node answers from its own ROS station.
    :param goal: goal fields the primitive implies (``close_gripper`` sends
        ``Gripper`` with ``action='close'``).
    """

    name: str
    acting: bool
    action: str | None
    goal: Mapping[str, str] = field(default_factory=dict)


def primitive(*, acting: bool = False, action: str | None = None,
              goal: Mapping[str, str] | None = None) -> Callable[[F], F]:
    """
    Mark a ``PrimitiveLibrary`` method as a primitive.

    :param acting: it acts on the robot.
    :param action: the ``pyrua_msgs`` action type serving it over ROS (None: a local read).
    :param goal: goal fields the primitive implies.
    :raises ValueError: for an unknown action type, listing the valid ones.
    """
    if action is not None and action not in ACTION_TYPES:
        raise ValueError(f'action {action!r} vs one of {ACTION_TYPES}; add the .action file '
                         'to pyrua_msgs first')

    def mark(func: F) -> F:
        func.__primitive__ = PrimitiveInfo(name=func.__name__, acting=acting, action=action,
                                           goal=dict(goal or {}))
        return func

    return mark


def declared_primitives(cls: type) -> dict[str, PrimitiveInfo]:
    """Return the primitives ``cls`` declares with ``@primitive``, in definition order."""
    found = {}
    for name, value in vars(cls).items():
        info = getattr(value, '__primitive__', None)
        if isinstance(info, PrimitiveInfo):
            found[name] = info
    return found

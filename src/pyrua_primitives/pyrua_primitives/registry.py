"""
The primitive registry and the action type registry: each declared once, read everywhere.

Each primitive declares itself where it is defined:
``@primitive(acting=True, action='MoveTo')`` on a ``PrimitiveLibrary`` method makes it a
``robo.<name>`` primitive; ``declared_primitives`` reads the marks in definition order.
Everything that needs these facts reads them from here: ``robo``'s primitives, the success
guard's acting set, the tool-calling baseline's pictures after motions, the ROS action
servers and the agent's action transport (``conversions.actions.ACTIONS``), and the typed
goals of a recording.

``ACTION_TYPES`` is the one table of the ``pyrua_msgs`` actions a primitive may be served
by: each type's result dataclass, its relative ROS action name and whether it reports
feedback. What a goal carries is not spelled here: ``conversions.goal_mapping`` derives
the goal <-> keyword arguments mapping from the ``.action`` file's Goal fields and the
primitive's signature.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
import importlib
import inspect
from types import MappingProxyType
from typing import Any, TypeVar

from .naming import unknown_name

F = TypeVar('F', bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class ActionType:
    """
    One ``pyrua_msgs`` action type a primitive may be served by.

    :param name: the action type, the stem of ``pyrua_msgs/action/<name>.action``.
    :param result: import path of the result dataclass its Result mirrors, ``'module:Class'``.
    :param ros_name: the relative action name the primitives node serves it under (launch
        pushes the ``pyrua`` namespace: ``/pyrua/<ros_name>``).
    :param feedback: the primitive is long and reports progress (its Feedback has fields).
    """

    name: str
    result: str
    ros_name: str
    feedback: bool

    def type_name(self, part: str) -> str:
        """Return the message type name of ``part`` ('Goal', 'Result' or 'Feedback')."""
        return f'pyrua_msgs/action/{self.name}_{part}'

    def result_class(self) -> type:
        """
        Import and return the result dataclass.

        :raises ImportError: when the module that defines it is not installed.
        """
        module, name = self.result.split(':')
        return getattr(importlib.import_module(module), name)


ACTION_TYPES: Mapping[str, ActionType] = MappingProxyType({a.name: a for a in (
    ActionType(name='Gripper', result='pyrua_primitives.results:GripperResult',
               ros_name='gripper', feedback=True),
    ActionType(name='Locate', result='pyrua_primitives.perception.locate:LocateResult',
               ros_name='locate', feedback=False),
    ActionType(name='MoveTo', result='pyrua_primitives.results:MoveResult',
               ros_name='move_to', feedback=True),
    ActionType(name='VlaRollout', result='pyrua_primitives.vla:VlaResult',
               ros_name='vla_rollout', feedback=True),
)})
"""The action type registry: ``pyrua_msgs/action`` type name -> ``ActionType``."""


def action_type(name: str) -> ActionType:
    """
    Return the registered action type ``name``.

    :raises KeyError: for an unknown type, listing the registered ones.
    """
    if name not in ACTION_TYPES:
        raise KeyError(unknown_name('action type', name, ACTION_TYPES) +
                       '; add its .action file to pyrua_msgs and its ActionType to '
                       'pyrua_primitives.registry.ACTION_TYPES')
    return ACTION_TYPES[name]


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
    :param signature: the method's signature (the goal mapping reads its parameters).
    """

    name: str
    acting: bool
    action: str | None
    goal: Mapping[str, str] = field(default_factory=dict)
    signature: inspect.Signature | None = field(default=None, compare=False, repr=False)


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
        raise ValueError(f'action {action!r} vs one of {sorted(ACTION_TYPES)}; add the '
                         '.action file to pyrua_msgs and its ActionType to ACTION_TYPES first')

    def mark(func: F) -> F:
        func.__primitive__ = PrimitiveInfo(name=func.__name__, acting=acting, action=action,
                                           goal=dict(goal or {}),
                                           signature=inspect.signature(func))
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

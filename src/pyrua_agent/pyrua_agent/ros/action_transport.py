"""
``ActionTransport``: the runtime's action-shaped Transport over rclpy ActionClients.

Primitives served as ``pyrua_msgs`` actions (``ACTIONS``: locate, move_to, the gripper,
vla) become goals to the primitives node, their arguments mapped to Goal fields as the
``.action`` files define them (``conversions.goal_mapping``); cancel (from the episode
watchdog or a cell timeout) sends a cancel request that the server honours through the
primitive's token. Every other primitive (pose, joints, image, camera_meta, back_project,
wait, home) runs in this process on the agent node's own ROS station, as the in-process
transport runs it: ``image`` subscribes to the camera only for the frame it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
import inspect
from typing import Any

from pyrua_primitives.arguments import RUNTIME_KEYWORDS
from pyrua_primitives.conversions.actions import ACTIONS, goal_fields, goal_value, served_actions
from pyrua_primitives.conversions.fields import message_to_dict
from pyrua_primitives.errors import PrimitiveError
from pyrua_primitives.ros.action_goal import ActionGoal
from pyrua_primitives.ros.messages import interface_class, make
from pyrua_primitives.ros.names import action_name
from rclpy.action import ActionClient
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from ..runtime.transport import FeedbackCallback, InProcessTransport

RESERVED = tuple(sorted(RUNTIME_KEYWORDS))


class RosGoal:
    """A primitive running as an action goal on the primitives node (a GoalHandle)."""

    def __init__(self, name: str, goal: ActionGoal) -> None:
        self.name = name
        self._goal = goal

    def done(self) -> bool:
        """Return True once the server reported the outcome."""
        return self._goal.done()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait up to ``timeout_s`` seconds (None: forever); return True when done."""
        return self._goal.wait(timeout_s)

    def result(self) -> Any:
        """
        Return the primitive's result dataclass, or raise the primitive's exception.

        :raises RuntimeError: if the goal has not finished yet.
        """
        if not self._goal.done():
            raise RuntimeError(f'goal {self.name!r} has no result yet; wait() for it first')
        return goal_value(self.name, self._goal.status, self._goal.result, self._goal.error)

    def cancel(self, reason: str = 'cancelled') -> None:
        """Send a cancel request; the server stops the primitive at its next check."""
        self._goal.cancel(reason)

    def __repr__(self) -> str:
        return f'<RosGoal {self.name} {self._goal!r}>'


class ActionTransport:
    """
    Run action primitives on the primitives node, the rest in this process.

    :param node: the agent node (spun by an executor in another thread).
    :param primitives: the local library's primitives (signatures bind the calls).
    :param callback_group: group of the action clients' callbacks.
    :param server_timeout_s: how long ``send_goal`` waits for an action server.
    """

    def __init__(self, node: Node, primitives: Mapping[str, Callable[..., Any]],
                 callback_group: ReentrantCallbackGroup, server_timeout_s: float) -> None:
        self._primitives = dict(primitives)
        self._local = InProcessTransport(primitives)
        self._timeout = server_timeout_s
        self._clients = {
            kind.name: ActionClient(node, interface_class(f'pyrua_msgs/action/{kind.name}'),
                                    action_name(kind.name), callback_group=callback_group)
            for kind in served_actions(primitives)}
        self._namespace = node.get_namespace().rstrip('/')

    def names(self) -> tuple[str, ...]:
        """Return the primitive names this transport can run."""
        return tuple(self._primitives)

    def send_goal(self, name: str, args: tuple, kwargs: dict,
                  feedback: FeedbackCallback | None = None) -> Any:
        """
        Start primitive ``name``: an action goal if it is an action, else in-process.

        :raises KeyError: for an unknown primitive name.
        :raises TypeError: for arguments the primitive does not take.
        :raises PrimitiveError: when the action server is not available.
        """
        if name not in ACTIONS or name not in self._primitives:
            return self._local.send_goal(name, args, kwargs, feedback)
        reserved = sorted(set(RESERVED) & set(kwargs))
        if reserved:
            raise TypeError(f'{name}() got the reserved keyword(s) {reserved}; the runtime '
                            'passes them itself, so leave them out')
        bound = inspect.signature(self._primitives[name]).bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = {k: v for k, v in bound.arguments.items() if k not in RESERVED}
        spec = ACTIONS[name]
        goal = make(spec.type_name('Goal'), **goal_fields(name, arguments))
        client = self._clients[spec.name]
        full_name = f'{self._namespace}/{action_name(spec.name)}'
        if not client.wait_for_server(timeout_sec=self._timeout):
            raise PrimitiveError(f'action server {full_name} not available after '
                                 f'{self._timeout} s; is `ros2 launch pyrua_bringup '
                                 'sim.launch.py` (or station.launch.py) running?')
        on_feedback = None if feedback is None else (lambda m: feedback(message_to_dict(m)))
        return RosGoal(name, ActionGoal(client, goal, full_name, on_feedback))

"""
One goal on an ``rclpy`` ActionClient, awaited from a thread that is not the executor's.

``ActionGoal`` sends the goal and follows it with done-callbacks (no blocking call runs
inside an executor callback), so any thread may ``wait`` on it while the executor spins
elsewhere (reference ``ros2.md`` §1.9). ``cancel`` works before and after acceptance: a
cancel requested while the goal is still pending is sent as soon as the server accepts.
It uses only the client's methods, so it imports no ROS.
"""

from __future__ import annotations

from collections.abc import Callable
import threading
import time
from typing import Any

STATUS_UNKNOWN = 0
STATUS_SUCCEEDED = 4
STATUS_CANCELED = 5
STATUS_ABORTED = 6
STATUS_NAMES = {0: 'unknown', 1: 'accepted', 2: 'executing', 3: 'canceling', 4: 'succeeded',
                5: 'canceled', 6: 'aborted'}


class ActionGoal:
    """
    A goal sent to an action server, with its result once the server is done.

    :param client: an ``rclpy.action.ActionClient`` (or anything with its interface).
    :param goal: the ``Foo.Goal`` message.
    :param name: the action's name, for messages.
    :param feedback: called with each ``Foo.Feedback`` message (on an executor thread).
    """

    def __init__(self, client: Any, goal: Any, name: str,
                 feedback: Callable[[Any], None] | None = None) -> None:
        self.name = name
        self.started_s = time.monotonic()
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._handle: Any = None
        self._cancel_reason = ''
        self._status = STATUS_UNKNOWN
        self._result: Any = None
        self._error = ''
        on_feedback = None if feedback is None else (lambda m: feedback(m.feedback))
        future = client.send_goal_async(goal, feedback_callback=on_feedback)
        future.add_done_callback(self._on_goal_response)

    def _on_goal_response(self, future: Any) -> None:
        try:
            handle = future.result()
        except Exception as exc:  # the transport failed; report it as the goal's error
            self._finish(STATUS_ABORTED, None, f'sending the goal to {self.name} failed: {exc}')
            return
        if not handle.accepted:
            self._finish(STATUS_ABORTED, None, f'{self.name} rejected the goal')
            return
        with self._lock:
            self._handle = handle
            cancel_now = bool(self._cancel_reason)
        if cancel_now:
            handle.cancel_goal_async()
        handle.get_result_async().add_done_callback(self._on_result)

    def _on_result(self, future: Any) -> None:
        try:
            response = future.result()
        except Exception as exc:  # the transport failed; report it as the goal's error
            self._finish(STATUS_ABORTED, None, f'result of {self.name} lost: {exc}')
            return
        self._finish(response.status, response.result, '')

    def _finish(self, status: int, result: Any, error: str) -> None:
        self._status, self._result, self._error = status, result, error
        self._done.set()

    def cancel(self, reason: str = 'cancelled') -> None:
        """Ask the server to cancel the goal now, or as soon as it accepts it."""
        with self._lock:
            first = not self._cancel_reason
            self._cancel_reason = self._cancel_reason or reason
            handle = self._handle
        if first and handle is not None and not self._done.is_set():
            handle.cancel_goal_async()

    @property
    def cancel_reason(self) -> str:
        """Return why cancel() was called ('' if it was not)."""
        return self._cancel_reason

    def done(self) -> bool:
        """Return True once the server reported the outcome (or the goal failed)."""
        return self._done.is_set()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait up to ``timeout_s`` seconds (None: forever); return True when done."""
        return self._done.wait(timeout_s)

    @property
    def status(self) -> int:
        """Return the final ``action_msgs/GoalStatus`` value (0 while not done)."""
        return self._status

    @property
    def result(self) -> Any:
        """Return the ``Foo.Result`` message (None while not done or when none came)."""
        return self._result

    @property
    def error(self) -> str:
        """Return why no result came ('' when the server answered)."""
        return self._error

    def __repr__(self) -> str:
        state = STATUS_NAMES.get(self._status, str(self._status)) if self.done() else 'active'
        return f'<ActionGoal {self.name} {state}>'

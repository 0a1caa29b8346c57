"""
``RecordedTransport``: every primitive goal (by keyword) and its result reach the recorder.

Recording at the transport, not at the primitive, records the same goals whether they run
in this process or as ROS action goals on the primitives node. Only
``pyrua_agent.episode.run_episode_spec`` wraps a world's transport with it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
import inspect
import threading
import time
from typing import Any

from .observer import EpisodeObserver
from ..runtime.robo import RUNTIME_KEYWORDS
from ..runtime.transport import FeedbackCallback, GoalHandle, Transport


class _RecordedGoal:
    """A goal whose result is reported to the observer the first time it is read."""

    def __init__(self, goal: GoalHandle, observer: EpisodeObserver, goal_id: int) -> None:
        self.name = goal.name
        self._goal = goal
        self._observer = observer
        self._goal_id = goal_id
        self._started = time.monotonic()
        self._finished: float | None = None
        self._reported = False
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f'<recorded {self._goal!r}>'

    def _stamp(self, done: bool) -> bool:
        if done and self._finished is None:
            self._finished = time.monotonic()
        return done

    def done(self) -> bool:
        """Return True once the goal has a result."""
        return self._stamp(self._goal.done())

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait up to ``timeout_s`` seconds; return True when done."""
        return self._stamp(self._goal.wait(timeout_s))

    def cancel(self, reason: str = 'cancelled') -> None:
        """Cancel the goal."""
        self._goal.cancel(reason)

    def result(self) -> Any:
        """Return (or raise) the goal's result, recording it once."""
        self._stamp(self._goal.done())
        try:
            value = self._goal.result()
        except Exception as exc:
            self._report(None, f'{type(exc).__name__}: {exc}')
            raise
        self._report(value, None)
        return value

    def _report(self, value: Any, error: str | None) -> None:
        with self._lock:
            if self._reported:
                return
            self._reported = True
        end = self._finished if self._finished is not None else time.monotonic()
        self._observer.primitive_result(self._goal_id, value, duration_s=end - self._started,
                                        error=error)


class RecordedTransport:
    """
    A transport whose every goal (by keyword) and result reach an episode observer.

    Recording at the transport, not at the primitive, records the same goals whether they
    run in this process or as ROS action goals on the primitives node.

    :param transport: the transport the runtime would use.
    :param primitives: the primitives (their signatures name the arguments).
    :param observer: the recorder (``primitive_goal`` / ``primitive_result``).
    """

    def __init__(self, transport: Transport, primitives: Mapping[str, Callable[..., Any]],
                 observer: EpisodeObserver) -> None:
        self._transport = transport
        self._signatures = {name: inspect.signature(func) for name, func in primitives.items()}
        self._observer = observer

    def names(self) -> tuple[str, ...]:
        """Return the primitive names the wrapped transport runs."""
        return self._transport.names()

    def send_goal(self, name: str, args: tuple, kwargs: dict,
                  feedback: FeedbackCallback | None = None) -> GoalHandle:
        """Record the goal, start it, and return a handle that records its result."""
        signature = self._signatures.get(name)
        try:
            bound = signature.bind(*args, **kwargs) if signature is not None else None
        except TypeError:
            bound = None  # the transport raises the clear TypeError itself
        if bound is None or RUNTIME_KEYWORDS & set(kwargs):
            return self._transport.send_goal(name, args, kwargs, feedback)
        goal_id = self._observer.primitive_goal(name, (), dict(bound.arguments))
        try:
            goal = self._transport.send_goal(name, args, kwargs, feedback)
        except Exception as exc:
            self._observer.primitive_result(goal_id, None, duration_s=0.0,
                                            error=f'{type(exc).__name__}: {exc}')
            raise
        return _RecordedGoal(goal, self._observer, goal_id)

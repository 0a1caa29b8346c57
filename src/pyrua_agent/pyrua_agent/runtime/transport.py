"""
The action-shaped transport between ``robo`` and the primitives.

A call to a primitive is a goal: ``send_goal`` starts it and returns a handle; the caller
may receive feedback, waits for the result, and may cancel it. This is the shape of a
ROS 2 action (send goal, feedback, result, cancel), so the ROS ActionClient transport
(``pyrua_agent.ros``) and the in-process one here are interchangeable.

``InProcessTransport`` runs each goal in its own thread. A primitive that declares a
keyword-only parameter ``cancel`` receives a ``pyrua_primitives.CancelToken`` and observes
cancellation by polling ``cancel.cancelled`` or sleeping with ``cancel.wait(dt)``; one that
declares a keyword-only ``feedback`` receives a callable it may call with progress values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
import inspect
import threading
import time
from typing import Any, Protocol

from pyrua_primitives import CancelToken
from pyrua_primitives.naming import unknown_name

FeedbackCallback = Callable[[Any], None]


class GoalHandle(Protocol):
    """One running or finished goal."""

    name: str

    def done(self) -> bool:
        """Return True once the goal has a result (value or error)."""

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait up to ``timeout_s`` seconds (None: forever); return True when done."""

    def result(self) -> Any:
        """Return the primitive's value, or raise its exception; call only when done."""

    def cancel(self, reason: str = 'cancelled') -> None:
        """Ask the primitive to stop early; it finishes at its next check."""


class Transport(Protocol):
    """Starts goals by primitive name."""

    def names(self) -> tuple[str, ...]:
        """Return the primitive names this transport can run."""

    def send_goal(self, name: str, args: tuple, kwargs: dict,
                  feedback: FeedbackCallback | None = None) -> GoalHandle:
        """Start primitive ``name`` with ``args``/``kwargs``; return its handle."""


class InProcessGoal:
    """A goal executed in its own thread of this process."""

    __slots__ = ('name', '_done', '_value', '_error', '_token', 'started_s', 'duration_s')

    def __init__(self, name: str) -> None:
        self.name = name
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None
        self._token = CancelToken()
        self.started_s = time.monotonic()
        self.duration_s = 0.0

    @property
    def token(self) -> CancelToken:
        """Return the cancel token handed to the primitive."""
        return self._token

    def done(self) -> bool:
        """Return True once the goal has a result (value or error)."""
        return self._done.is_set()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait up to ``timeout_s`` seconds (None: forever); return True when done."""
        return self._done.wait(timeout_s)

    def result(self) -> Any:
        """
        Return the primitive's value, or raise its exception.

        :raises RuntimeError: if the goal has not finished yet.
        """
        if not self._done.is_set():
            raise RuntimeError(f'goal {self.name!r} has no result yet; wait() for it first')
        if self._error is not None:
            raise self._error
        return self._value

    def cancel(self, reason: str = 'cancelled') -> None:
        """Ask the primitive to stop early through its cancel token."""
        self._token.cancel(reason)

    def _run(self, func: Callable, args: tuple, kwargs: dict) -> None:
        try:
            self._value = func(*args, **kwargs)
        except BaseException as exc:  # the caller re-raises it where the cell can see it
            self._error = exc
        finally:
            self.duration_s = time.monotonic() - self.started_s
            self._done.set()

    def __repr__(self) -> str:
        state = 'done' if self.done() else ('cancelling' if self._token.cancelled else 'active')
        return f'<InProcessGoal {self.name} {state}>'


class InProcessTransport:
    """
    Run primitives as goals in threads of this process.

    :param primitives: primitive name to callable; signatures are inspected once here.
    """

    def __init__(self, primitives: Mapping[str, Callable]) -> None:
        self._primitives = dict(primitives)
        self._takes: dict[str, tuple[bool, bool]] = {
            name: _keyword_only_flags(func) for name, func in self._primitives.items()
        }

    def names(self) -> tuple[str, ...]:
        """Return the primitive names this transport can run."""
        return tuple(self._primitives)

    def send_goal(self, name: str, args: tuple, kwargs: dict,
                  feedback: FeedbackCallback | None = None) -> InProcessGoal:
        """
        Start primitive ``name`` in a new thread.

        :param name: the primitive's name.
        :param args: positional arguments.
        :param kwargs: keyword arguments (``cancel`` and ``feedback`` are reserved).
        :param feedback: called with each progress value the primitive reports.
        :returns: the goal's handle.
        :raises KeyError: for an unknown primitive name.
        :raises TypeError: if the caller passes the reserved ``cancel``/``feedback`` keywords.
        """
        func = self._primitives.get(name)
        if func is None:
            raise KeyError(unknown_name('primitive', name, self._primitives))
        reserved = sorted({'cancel', 'feedback'} & set(kwargs))
        if reserved:
            raise TypeError(f'{name}() got the reserved keyword(s) {reserved}; the runtime '
                            'passes them itself, so leave them out')
        takes_cancel, takes_feedback = self._takes[name]
        goal = InProcessGoal(name)
        if takes_cancel:
            kwargs = {**kwargs, 'cancel': goal.token}
        if takes_feedback:
            kwargs = {**kwargs, 'feedback': feedback or _ignore}
        thread = threading.Thread(target=goal._run, args=(func, args, kwargs),
                                  name=f'goal-{name}', daemon=True)
        thread.start()
        return goal


class _TappedGoal:
    """A goal whose value is shown to a callback once, the first time it is read."""

    def __init__(self, goal: GoalHandle, on_result: Callable[[str, Any], None]) -> None:
        self.name = goal.name
        self._goal = goal
        self._on_result = on_result
        self._seen = False

    def __repr__(self) -> str:
        return f'<tapped {self._goal!r}>'

    def done(self) -> bool:
        """Return True once the goal has a result."""
        return self._goal.done()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait up to ``timeout_s`` seconds; return True when done."""
        return self._goal.wait(timeout_s)

    def cancel(self, reason: str = 'cancelled') -> None:
        """Cancel the goal."""
        self._goal.cancel(reason)

    def result(self) -> Any:
        """Return (or raise) the goal's result; a value goes to the callback once."""
        value = self._goal.result()
        if not self._seen:
            self._seen = True
            self._on_result(self.name, value)
        return value


class TappedTransport:
    """
    A transport whose goals' values are shown to ``on_result(name, value)``.

    For a world whose acting primitives run outside this process (the primitives node, a
    replay): the local library still learns what they did (``note_gripper``).
    """

    def __init__(self, transport: Transport, on_result: Callable[[str, Any], None]) -> None:
        self._transport = transport
        self._on_result = on_result

    def names(self) -> tuple[str, ...]:
        """Return the primitive names the wrapped transport runs."""
        return self._transport.names()

    def send_goal(self, name: str, args: tuple, kwargs: dict,
                  feedback: FeedbackCallback | None = None) -> GoalHandle:
        """Start the goal on the wrapped transport; its value reaches ``on_result``."""
        return _TappedGoal(self._transport.send_goal(name, args, kwargs, feedback),
                           self._on_result)


def _ignore(_value: Any) -> None:
    """Drop a feedback value nobody asked for."""


def _keyword_only_flags(func: Callable) -> tuple[bool, bool]:
    """Return whether ``func`` declares keyword-only ``cancel`` and ``feedback`` parameters."""
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False, False
    kw_only = {n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    return 'cancel' in kw_only, 'feedback' in kw_only

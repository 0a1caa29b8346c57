"""
Cancellation tokens that a running primitive polls to stop early.

The transport (in-process thread or ROS action server) creates one token per goal and
passes it to the primitive and on to the Station, which checks it between control steps.
"""

from __future__ import annotations

import threading


class CancelToken:
    """A one-way flag: once cancelled it stays cancelled."""

    __slots__ = ('_event', '_reason')

    def __init__(self) -> None:
        self._event = threading.Event()
        self._reason = ''

    def cancel(self, reason: str = 'cancelled') -> None:
        """Request cancellation; the running primitive stops at its next check."""
        if not self._event.is_set():
            self._reason = reason
            self._event.set()

    @property
    def cancelled(self) -> bool:
        """Return True once cancellation has been requested."""
        return self._event.is_set()

    @property
    def reason(self) -> str:
        """Return why cancellation was requested ('' while not cancelled)."""
        return self._reason

    def wait(self, timeout_s: float) -> bool:
        """
        Sleep up to ``timeout_s`` seconds, waking early on cancellation.

        :param timeout_s: longest time to wait, in seconds.
        :returns: True if the token was cancelled before or during the wait.
        """
        return self._event.wait(timeout_s)

    def __repr__(self) -> str:
        state = f'cancelled: {self._reason}' if self.cancelled else 'active'
        return f'<CancelToken {state}>'

"""Fixtures of the agent package: host-side primitives and cell runtimes that close."""

import os
import threading
import time

import numpy as np
from pyrua_agent.runtime import CellRuntime
from pyrua_agent.testing import LoopbackLLMServer
import pytest


@pytest.fixture(scope='session')
def session_server():
    """Start one OpenAI-compatible loopback server for the whole session."""
    with LoopbackLLMServer() as server:
        yield server


@pytest.fixture
def server(session_server):
    """Return the session's loopback server with an empty script and no recorded requests."""
    session_server.reset()
    session_server.prompt_caching = True
    session_server.images_in_tool_messages = False
    session_server.context_tokens = None
    return session_server


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch):
    """Keep LLM endpoint and ROS settings of the developer's shell out of every test."""
    for name in list(os.environ):
        if name.startswith(('OPENAI_', 'ROS_')):
            monkeypatch.delenv(name)


class FakeRobot:
    """Host-side primitives with observable effects, as a real station's would have."""

    def __init__(self) -> None:
        self.moves: list[tuple] = []
        self.cancel_reasons: list[str] = []
        self.started = threading.Event()

    def noop(self) -> None:
        """Do nothing."""

    def echo(self, value):
        """Return ``value`` unchanged."""
        return value

    def image(self, camera: str) -> np.ndarray:
        """Return a 480x640 RGB frame whose red channel is the camera name's length."""
        frame = np.zeros((480, 640, 3), np.uint8)
        frame[..., 0] = len(camera)
        return frame

    def move_to(self, arm: str, xyz: tuple, duration_s: float = 0.0, *, cancel) -> str:
        """
        Move ``arm`` to ``xyz`` (metres, station frame), taking ``duration_s`` seconds.

        :returns: 'reached', or 'cancelled' if the goal was cancelled on the way.
        """
        if xyz[2] < 0.0:
            raise ValueError(f'z={xyz[2]:.3f} m is below the table; raise z')
        self.started.set()
        deadline = time.monotonic() + duration_s
        while time.monotonic() < deadline:
            if cancel.wait(0.01):
                self.cancel_reasons.append(cancel.reason)
                return 'cancelled'
        self.moves.append((arm, tuple(xyz)))
        return 'reached'

    def stubborn(self, duration_s: float) -> str:
        """Sleep ``duration_s`` seconds and ignore cancellation."""
        self.started.set()
        time.sleep(duration_s)
        return 'done'

    def fail(self) -> None:
        """Raise an error type that is not a builtin."""
        raise LookupFailure('no camera sees the cup')

    def primitives(self) -> dict:
        return {name: getattr(self, name)
                for name in ('noop', 'echo', 'image', 'move_to', 'stubborn', 'fail')}


class LookupFailure(Exception):
    """A primitive's own error type (not a builtin)."""


@pytest.fixture
def robot():
    return FakeRobot()


@pytest.fixture
def make_runtime(robot):
    """Build cell runtimes over ``robot``'s primitives; all are closed after the test."""
    made = []

    def make(**kwargs):
        kwargs.setdefault('interrupt_grace_s', 0.5)
        rt = CellRuntime(robot.primitives(), **kwargs)
        made.append(rt)
        return rt

    yield make
    for rt in made:
        rt.close()

"""A scripted openpi-protocol policy server on 127.0.0.1 and the twin it drives."""

from __future__ import annotations

import socket
import threading

import numpy as np
import pytest


class ScriptedPolicy:
    """
    A policy whose replies a test scripts; it keeps every observation it received.

    ``respond(observation, count)`` returns the reply map; by default the policy holds the
    arm still (an H x 7 chunk repeating the observed state).
    """

    def __init__(self):
        self.observations = []
        self.respond = self.hold
        self._lock = threading.Lock()

    def reset(self, respond=None):
        with self._lock:
            self.observations.clear()
        self.respond = respond or self.hold

    @staticmethod
    def hold(observation, count, horizon=8):
        state = np.asarray(observation['observation/state'], dtype=np.float32)
        return {'actions': np.tile(state, (horizon, 1))}

    def __call__(self, observation):
        with self._lock:
            self.observations.append(observation)
            count = len(self.observations)
        return self.respond(observation, count)


@pytest.fixture(scope='module')
def scripted_policy():
    """Return (policy, server) serving the scripted policy on a free loopback port."""
    pytest.importorskip('msgpack', reason="the vla extra: pip install 'pyrua_primitives[vla]'")
    pytest.importorskip('websockets', reason="the vla extra: pip install 'pyrua_primitives[vla]'")
    from pyrua_primitives.vla import PolicyServer

    policy = ScriptedPolicy()
    with PolicyServer(policy, metadata={'name': 'scripted', 'action_horizon': 8}) as server:
        yield policy, server


@pytest.fixture
def policy_server(scripted_policy):
    """Return the module's scripted policy server, its script and records reset."""
    policy, server = scripted_policy
    policy.reset()
    return server


@pytest.fixture
def policy(scripted_policy, policy_server):
    """Return the scripted policy behind ``policy_server`` (reset for this test)."""
    return scripted_policy[0]


@pytest.fixture
def closed_port():
    """Return a loopback TCP port on which nothing listens."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]

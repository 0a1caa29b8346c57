"""Fixtures of the runtime tests: both sandbox modes, and whether a process is gone."""

import os

from pyrua_agent.runtime.sandbox import bwrap_problem
import pytest


def _gone(pid: int) -> bool:
    """Return True if ``pid`` has exited (no process, or a zombie nobody reaped yet)."""
    try:
        with open(f'/proc/{pid}/stat', 'rb') as f:
            stat = f.read()
    except FileNotFoundError:
        return True
    return stat[stat.rfind(b')') + 2:].split()[0] in (b'Z', b'X')


@pytest.fixture
def gone():
    """Return a check that is True once a process has exited."""
    return _gone


@pytest.fixture
def needs_bwrap():
    """Skip, saying why, where bubblewrap cannot sandbox the worker."""
    problem = bwrap_problem()
    if problem is not None:
        pytest.skip(f'needs the bubblewrap sandbox: {problem}')


@pytest.fixture
def host_pid():
    """Return this (host) process's pid."""
    return os.getpid()


@pytest.fixture(params=['auto', 'none'])
def make_runtime(make_runtime, request):
    """Build runtimes in the default sandbox mode and again with process isolation only."""
    def make(**kwargs):
        kwargs.setdefault('sandbox', request.param)
        return make_runtime(**kwargs)

    return make

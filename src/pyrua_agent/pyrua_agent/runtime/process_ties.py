"""
How the cell worker ties itself to its host: parent death, subreaping, resource limits.

Called once by ``worker.main`` before any cell runs: the worker dies with the host
(``PR_SET_PDEATHSIG``, SIGKILL), keeps every process a cell starts below itself
(``PR_SET_CHILD_SUBREAPER``, so the host's ``kill_tree`` finds them) and applies the
host's ``WorkerLimits`` as rlimits that its children inherit.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def watch_parent(parent_pid: int) -> None:
    """Exit once this process has another parent than ``parent_pid`` (polled every second)."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent_pid:
            os._exit(0)


def die_with_parent() -> None:
    """Get SIGKILL when the parent dies (a child forked by a cell: ``register_at_fork``)."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def set_limits(limits: dict) -> None:
    """Apply the host's resource limits (``WorkerLimits``) to this process and its children."""
    mib = 1024 * 1024
    wanted = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_NOFILE, limits['open_files']),
              (resource.RLIMIT_FSIZE, limits['file_size_mb'] * mib)]
    if limits['memory_mb'] is not None:
        wanted.append((resource.RLIMIT_AS, limits['memory_mb'] * mib))
    if limits['processes'] is not None:
        wanted.append((resource.RLIMIT_NPROC, limits['processes']))
    for which, value in wanted:
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))


def tie_to_parent(parent_pid: int) -> None:
    """Die with the parent (SIGKILL), and keep orphaned descendants below this process."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(0)  # the parent died before the signal was armed

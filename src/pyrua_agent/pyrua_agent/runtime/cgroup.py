"""
One cgroup per cell worker: a cap on its processes and memory that binds for every uid.

RLIMIT_NPROC counts processes per user and the kernel ignores it for root, so on CI, in
Docker and on machines where the host runs as root it never binds. A cgroup does: the
worker (and everything it starts, in either sandbox mode) runs in its own child group
with ``pids.max`` = ``WorkerLimits.processes`` and a memory cap of
``WorkerLimits.sandbox_memory_mb`` for all of it together, tmpfs files included
(``memory.max``, or ``memory.limit_in_bytes`` on cgroup v1). The group is made below the
host's own group, in cgroup v2 or, where only v1 has the controllers, in the v1 ``pids``
and ``memory`` hierarchies; the worker joins it before bwrap or Python start (a ``sh``
that writes its pid, then execs them), and the host removes it after the worker is gone.

Where no group can be made (no write access to the cgroup file system, as for most
normal users, or the controllers are not delegated), ``worker_cgroup`` returns None and
logs one warning line per process saying which caps are then missing.
"""

from __future__ import annotations

from dataclasses import dataclass
import functools
import itertools
import logging
import os
import re
import signal
import time

from .limits import WorkerLimits

_LOG = logging.getLogger(__name__)
PREFIX = 'pyrua-worker-'
_COUNTER = itertools.count(1)
REMOVE_WAIT_S = 2.0


@dataclass(frozen=True)
class WorkerCgroup:
    """
    The cgroup directories of one worker (one in v2; one per controller in v1).

    :param paths: the group directories.
    :param version: 2 or 1.
    """

    paths: tuple[str, ...]
    version: int

    def __repr__(self) -> str:
        return f'WorkerCgroup(v{self.version}, {", ".join(self.paths)})'

    def join_prefix(self) -> list[str]:
        """Return a command prefix that moves itself into the group, then runs the rest."""
        files = [os.path.join(path, 'cgroup.procs') for path in self.paths]
        script = ' && '.join(f'echo $$ > "${k + 1}"' for k in range(len(files)))
        return ['/bin/sh', '-c', f'{script} && shift {len(files)} && exec "$@"', 'sh', *files]

    def pids(self) -> list[int]:
        """Return the processes in the group now."""
        found: set[int] = set()
        for path in self.paths:
            try:
                with open(os.path.join(path, 'cgroup.procs')) as f:
                    found.update(int(line) for line in f if line.strip())
            except OSError:
                continue
        return sorted(found)

    def kill(self) -> None:
        """SIGKILL every process in the group, repeating until it is empty (or 2 s pass)."""
        if not self.paths:
            return
        path = self.paths[0]
        if self.version == 2 and os.path.exists(os.path.join(path, 'cgroup.kill')):
            _write(os.path.join(path, 'cgroup.kill'), '1')
        deadline = time.monotonic() + REMOVE_WAIT_S
        while time.monotonic() < deadline:
            left = self.pids()
            if not left:
                return
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.005)

    def remove(self) -> None:
        """Kill what is left in the group and remove its directories."""
        self.kill()
        for path in self.paths:
            deadline = time.monotonic() + REMOVE_WAIT_S
            while True:
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY while the last zombies are reaped
                    if time.monotonic() >= deadline:
                        _LOG.warning('cgroup %s could not be removed', path)
                        break
                    time.sleep(0.01)


def _write(path: str, text: str) -> None:
    with open(path, 'w') as f:
        f.write(text)


def _mounts() -> list[tuple[str, str, set[str]]]:
    """Return (mount point, fs type, super options) of every cgroup file system."""
    found = []
    try:
        with open('/proc/self/mountinfo') as f:
            lines = f.read().splitlines()
    except OSError:
        return found
    for line in lines:
        head, _, tail = line.partition(' - ')
        fields, extra = head.split(), tail.split()
        if len(fields) >= 5 and len(extra) >= 3 and extra[0] in ('cgroup', 'cgroup2'):
            point = re.sub(r'\\(\d{3})', lambda m: chr(int(m.group(1), 8)), fields[4])
            found.append((point, extra[0], set(extra[2].split(','))))
    return found


def _own_groups() -> dict[str, str]:
    """Return controller ('' for cgroup v2) -> this process's group path."""
    groups = {}
    try:
        with open('/proc/self/cgroup') as f:
            for line in f:
                _id, controllers, path = line.rstrip('\n').split(':', 2)
                for name in controllers.split(',') if controllers else ['']:
                    groups[name] = path
    except (OSError, ValueError):
        pass
    return groups


def _sweep(parent: str) -> None:
    """Remove groups left behind by hosts that were killed (their pid is gone)."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        match = re.fullmatch(rf'{PREFIX}(\d+)-\d+', name)
        if match and not os.path.exists(f'/proc/{match.group(1)}'):
            try:
                os.rmdir(os.path.join(parent, name))
            except OSError:
                pass


def _v2(limits: WorkerLimits, name: str) -> tuple[WorkerCgroup | None, str]:
    groups = _own_groups()
    mount = next((point for point, kind, _ in _mounts() if kind == 'cgroup2'), None)
    if mount is None or '' not in groups:
        return None, 'no cgroup v2 file system'
    parent = os.path.join(mount, groups[''].lstrip('/'))
    try:
        with open(os.path.join(parent, 'cgroup.controllers')) as f:
            available = set(f.read().split())
    except OSError as exc:
        return None, f'cgroup v2 {parent} unreadable ({exc.strerror})'
    if not {'pids', 'memory'} <= available:
        return None, f'cgroup v2 {parent} offers {sorted(available)}, not pids and memory'
    try:
        with open(os.path.join(parent, 'cgroup.subtree_control')) as f:
            enabled = set(f.read().split())
        if not {'pids', 'memory'} <= enabled:
            _write(os.path.join(parent, 'cgroup.subtree_control'), '+pids +memory')
    except OSError as exc:
        return None, (f'cgroup v2 {parent} does not delegate pids and memory to child groups '
                      f'({exc.strerror})')
    _sweep(parent)
    path = os.path.join(parent, name)
    try:
        os.mkdir(path)
    except OSError as exc:
        return None, f'cannot create a cgroup in {parent} ({exc.strerror})'
    group = WorkerCgroup((path,), 2)
    try:
        _write(os.path.join(path, 'pids.max'), str(limits.processes))
        if limits.sandbox_memory_mb is not None:
            _write(os.path.join(path, 'memory.max'), str(limits.sandbox_memory_mb << 20))
            if os.path.exists(os.path.join(path, 'memory.swap.max')):
                _write(os.path.join(path, 'memory.swap.max'), '0')
    except OSError as exc:
        group.remove()
        return None, f'cannot set the limits of cgroup {path} ({exc.strerror})'
    return group, ''


def _v1(limits: WorkerLimits, name: str) -> tuple[WorkerCgroup | None, str]:
    groups = _own_groups()
    points = {}
    for point, kind, options in _mounts():
        for controller in ('pids', 'memory'):
            if kind == 'cgroup' and controller in options and controller in groups:
                points[controller] = os.path.join(point, groups[controller].lstrip('/'))
    if set(points) != {'pids', 'memory'}:
        return None, 'no cgroup v1 pids and memory hierarchies'
    made = []
    try:
        for controller, parent in sorted(points.items()):
            _sweep(parent)
            path = os.path.join(parent, name)
            os.mkdir(path)
            made.append(path)
            if controller == 'pids':
                _write(os.path.join(path, 'pids.max'), str(limits.processes))
            elif limits.sandbox_memory_mb is not None:
                _write(os.path.join(path, 'memory.limit_in_bytes'),
                       str(limits.sandbox_memory_mb << 20))
    except OSError as exc:
        if made:
            WorkerCgroup(tuple(made), 1).remove()
        return None, f'cannot create cgroup v1 groups ({exc.strerror})'
    return WorkerCgroup(tuple(made), 1), ''


def worker_cgroup(limits: WorkerLimits) -> WorkerCgroup | None:
    """
    Create the cgroup of one new worker, or return None (with one warning) where it cannot.

    :param limits: ``processes`` and ``sandbox_memory_mb`` become its caps.
    """
    name = f'{PREFIX}{os.getpid()}-{next(_COUNTER)}'
    group, why_v2 = _v2(limits, name)
    if group is not None:
        return group
    group, why_v1 = _v1(limits, name)
    if group is not None:
        return group
    _warn_once(f'{why_v2}; {why_v1}')
    return None


def cgroup_problem() -> str | None:
    """Return why workers get no cgroup here (trying one), or None when they do."""
    name = f'{PREFIX}{os.getpid()}-{next(_COUNTER)}'
    group, why_v2 = _v2(WorkerLimits(), name)
    if group is None:
        group, why_v1 = _v1(WorkerLimits(), name)
        if group is None:
            return f'{why_v2}; {why_v1}'
    group.remove()
    return None


@functools.lru_cache(maxsize=4)
def _warn_once(problem: str) -> None:
    _LOG.warning('CELL WORKERS HAVE NO CGROUP: %s; so the %s-process and memory caps of the '
                 'whole sandbox do not bind (RLIMIT_NPROC still binds for a host that is not '
                 'root); run the host where it may create child cgroups (e.g. root with a '
                 'writable /sys/fs/cgroup, or a delegated systemd scope)', problem,
                 WorkerLimits.processes)

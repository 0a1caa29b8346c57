"""
The OS sandbox of the cell worker: a bubblewrap (``bwrap``) command line, or none.

``bwrap`` mode runs the worker in new user, pid, network, ipc and uts namespaces as uid and
gid 65534 with no capabilities, in a new session, killed with its parent. Its file system is
read-only and holds only: ``/usr`` (system libraries), the Python runtime (executable,
libpython, the standard library without its site-packages), the distributions the worker
imports (``WORKER_DISTRIBUTIONS`` and what they require, e.g. numpy, opencv, msgpack,
``pyrua_primitives``) under ``SITE_DIR``, and of ``pyrua_agent`` only its ``__init__``,
``errors`` and ``runtime``. Not ``pyrua_sim``, not the evaluator, not the host's
virtual environment or its ``bin``, not the project tree, not ``/home``, ``/root``,
``/etc`` (except the loader cache) or the host's ``/proc``: ``/proc`` shows only the
sandbox's own processes. ``/`` and ``/dev`` are read-only; the only writable places are
private tmpfs mounts of a fixed size: the scratch directory (``WorkerLimits.scratch_mb``),
``/tmp`` and ``/dev/shm`` (``tmp_mb`` each). The seccomp filter of ``seccomp.py`` holds for
every process in it (bwrap ``--seccomp``), nested user namespaces are refused (also bwrap's
``--disable-userns`` where it has it), and the memory of the sandbox's init, which carries
``--die-with-parent`` for the whole namespace, is masked. The process and memory caps of
the sandbox as a whole come from its cgroup (``cgroup.py``).

``none`` mode is plain process isolation (see ``process.py``); ``auto`` picks ``bwrap``
where it works here and otherwise ``none``, with one warning line per process.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import logging
import os
import re
import shutil
import subprocess
import sys
import sysconfig

from .limits import WorkerLimits

_LOG = logging.getLogger(__name__)
SANDBOX_MODES = ('auto', 'bwrap', 'none')
SITE_DIR = '/pyrua/site'
SANDBOX_UID = 65534
# What the worker imports besides the standard library; their requirements come along.
WORKER_DISTRIBUTIONS = ('msgpack', 'numpy', 'pyrua_primitives')
# Build tooling some distributions list as a requirement but the worker never imports.
_SKIPPED_DISTRIBUTIONS = frozenset({'setuptools', 'pip', 'wheel'})
_AGENT_PARTS = ('__init__.py', 'errors.py', 'runtime')
INSTALL_HINT = ('install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow '
                'unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 or '
                'kernel.apparmor_restrict_unprivileged_userns=0)')


class SandboxUnavailable(RuntimeError):
    """``sandbox='bwrap'`` was asked for where bubblewrap cannot run."""


def python_executable() -> str:
    """Return the real interpreter behind this process (not the venv's bin/ link)."""
    return os.path.realpath(getattr(sys, '_base_executable', None) or sys.executable)


def _distribution_closure() -> list[importlib.metadata.Distribution]:
    seen: dict[str, importlib.metadata.Distribution] = {}
    todo = list(WORKER_DISTRIBUTIONS)
    while todo:
        name = re.split(r'[\s<>=!~;\[(]', todo.pop(), maxsplit=1)[0]
        key = re.sub(r'[-_.]+', '_', name).lower()
        if key in seen or key in _SKIPPED_DISTRIBUTIONS:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        seen[key] = dist
        todo += [req for req in dist.requires or () if 'extra ==' not in req]
    return list(seen.values())


def _distribution_paths(dist: importlib.metadata.Distribution) -> dict[str, str]:
    """Return top-level name -> host path of what ``dist`` installs (packages, libs)."""
    paths = {}
    for file in dist.files or ():
        parts = file.parts
        if not parts or parts[0] in ('..', '__pycache__') or parts[0].endswith(
                ('.dist-info', '.egg-info', '.pth')) or parts[0].startswith('__editable__'):
            continue
        located = os.path.realpath(dist.locate_file(parts[0]))
        if os.path.exists(located):
            paths[parts[0]] = located
    if not paths:
        # An editable install lists only its metadata: find the package by import name.
        name = re.sub(r'[-.]+', '_', dist.metadata['Name'])
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            paths[name] = os.path.realpath(list(spec.submodule_search_locations)[0])
    return paths


@functools.lru_cache(maxsize=1)
def _read_only_view() -> tuple[str, ...]:
    """Return the bwrap arguments of the worker's read-only file system."""
    args = ['--ro-bind', '/usr', '/usr']
    for top in ('bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'):
        path = f'/{top}'
        if os.path.islink(path):
            args += ['--symlink', os.readlink(path), path]
        elif os.path.isdir(path):
            args += ['--ro-bind', path, path]
    args += ['--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache']
    exe = python_executable()
    if not exe.startswith('/usr/'):
        args += ['--ro-bind', exe, exe]
    libdir = sysconfig.get_config_var('LIBDIR') or ''
    if libdir and not libdir.startswith('/usr/') and os.path.isdir(libdir):
        for name in sorted(os.listdir(libdir)):
            if name.startswith('libpython') and '.so' in name:
                args += ['--ro-bind', os.path.join(libdir, name), os.path.join(libdir, name)]
    stdlib = os.path.realpath(sysconfig.get_paths()['stdlib'])
    if not stdlib.startswith('/usr/'):
        args += ['--ro-bind', stdlib, stdlib]
    for hidden in ('site-packages', 'dist-packages'):
        if os.path.isdir(os.path.join(stdlib, hidden)):
            path = os.path.join(stdlib, hidden)
            args += ['--size', '4096', '--tmpfs', path, '--remount-ro', path]
    for dist in _distribution_closure():
        for top, path in sorted(_distribution_paths(dist).items()):
            if top != 'pyrua_agent':
                args += ['--ro-bind', path, f'{SITE_DIR}/{top}']
    agent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for part in _AGENT_PARTS:
        args += ['--ro-bind', os.path.join(agent, part), f'{SITE_DIR}/pyrua_agent/{part}']
    return tuple(args)


def sandbox_environment() -> dict[str, str]:
    """Return the whole environment of a sandboxed worker (nothing comes from the host's)."""
    return {'PATH': '/usr/bin:/bin', 'HOME': '/tmp', 'LANG': 'C.UTF-8',
            'PYTHONPATH': SITE_DIR, 'PYTHONDONTWRITEBYTECODE': '1', 'PYTHONNOUSERSITE': '1',
            'OPENBLAS_NUM_THREADS': '1', 'OMP_NUM_THREADS': '1'}


def bwrap_command(worker_argv: list[str], scratch_dir: str, limits: WorkerLimits,
                  bwrap: str = 'bwrap', seccomp_fd: int | None = None) -> list[str]:
    """
    Return the command that runs ``worker_argv`` inside the sandbox.

    :param worker_argv: the worker's own command (interpreter first).
    :param scratch_dir: the worker's working directory: a private tmpfs at this path.
    :param limits: ``scratch_mb`` sizes the scratch tmpfs, ``tmp_mb`` ``/tmp`` and
        ``/dev/shm``; everything else (``/``, ``/dev``) is read-only.
    :param seccomp_fd: a descriptor holding the seccomp BPF program (``seccomp.py``).
    """
    mib = 1024 * 1024
    scratch, tmp = str(limits.scratch_mb * mib), str(limits.tmp_mb * mib)
    userns = ['--disable-userns'] if _bwrap_supports(bwrap, '--disable-userns') else []
    seccomp = ['--seccomp', str(seccomp_fd)] if seccomp_fd is not None else []
    return [bwrap, '--unshare-user', '--unshare-pid', '--unshare-net', '--unshare-ipc',
            '--unshare-uts', '--unshare-cgroup-try', *userns, '--uid', str(SANDBOX_UID),
            '--gid', str(SANDBOX_UID), '--hostname', 'pyrua-cell', '--cap-drop', 'ALL',
            '--die-with-parent', '--new-session', *seccomp, *_read_only_view(),
            '--proc', '/proc', *_PROC_MASKS, '--dev', '/dev',
            '--size', tmp, '--tmpfs', '/dev/shm', '--remount-ro', '/dev',
            '--size', tmp, '--tmpfs', '/tmp', '--size', scratch, '--tmpfs', scratch_dir,
            '--remount-ro', '/', '--chdir', scratch_dir, '--', *worker_argv]


# The sandbox's init (pid 1) holds --die-with-parent for the whole namespace: its memory
# is not writable from inside (ptrace is refused by the seccomp filter).
_PROC_MASKS = ('--ro-bind', '/dev/null', '/proc/1/mem',
               '--ro-bind', '/dev/null', '/proc/1/task/1/mem')


@functools.lru_cache(maxsize=4)
def _bwrap_supports(bwrap: str, option: str) -> bool:
    """Return True if this bubblewrap's help lists ``option`` (0.8 added --disable-userns)."""
    try:
        done = subprocess.run([bwrap, '--help'], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return option.encode() in done.stdout + done.stderr


def bwrap_problem() -> str | None:
    """Return why bubblewrap cannot sandbox the worker here, or None if it can."""
    return _probe(shutil.which('bwrap'))


@functools.lru_cache(maxsize=4)
def _probe(bwrap: str | None) -> str | None:
    """Run a trivial sandboxed interpreter once per bwrap binary; return what failed."""
    if bwrap is None:
        return 'bubblewrap (bwrap) is not installed'
    probe = bwrap_command([python_executable(), '-S', '-c', 'import numpy, msgpack'],
                          '/tmp/pyrua-probe', WorkerLimits(), bwrap)
    try:
        done = subprocess.run(probe, env=sandbox_environment(), capture_output=True,
                              timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f'bwrap did not run: {exc}'
    if done.returncode != 0:
        tail = done.stderr.decode('utf-8', 'replace').strip().splitlines()[-1:]
        return f'bwrap failed here: {tail[0] if tail else f"exit code {done.returncode}"}'
    return None


def resolve_sandbox(mode: str) -> str:
    """
    Return 'bwrap' or 'none' for the asked ``mode``.

    :raises ValueError: for an unknown mode.
    :raises SandboxUnavailable: for 'bwrap' where bubblewrap cannot run.
    """
    if mode not in SANDBOX_MODES:
        raise ValueError(f'sandbox {mode!r} vs one of {", ".join(SANDBOX_MODES)}')
    if mode == 'none':
        return 'none'
    problem = bwrap_problem()
    if problem is None:
        return 'bwrap'
    if mode == 'bwrap':
        raise SandboxUnavailable(f'sandbox=bwrap: {problem}; {INSTALL_HINT}, or pass '
                                 "sandbox='none' to run cells with process isolation only")
    _warn_once(problem)
    return 'none'


@functools.lru_cache(maxsize=1)
def _warn_once(problem: str) -> None:
    _LOG.warning('CELLS ARE NOT SANDBOXED: %s, so cell workers run with process isolation '
                 'only (sandbox: none); to sandbox them, %s', problem, INSTALL_HINT)

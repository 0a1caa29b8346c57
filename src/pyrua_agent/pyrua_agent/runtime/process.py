"""
The host's handle on one cell worker process: start, sandbox, interrupt, kill its tree.

The worker is a fresh interpreter (``python -m pyrua_agent.runtime.worker <fd>``), started
with ``subprocess`` in its own session, either inside the bubblewrap sandbox
(``sandbox.py``) or, in ``none`` mode, with a scrubbed environment in the episode's scratch
directory. It talks to the host over one socket pair (``protocol.py``).

Nothing it starts outlives it: the worker makes itself a child subreaper (orphaned
descendants are re-parented to it, not to init), and ``kill()`` stops the worker and every
descendant it finds in ``/proc`` (repeating until no new one appears), then kills them all
and the session's process group. In ``bwrap`` mode killing the sandbox's init ends its pid
namespace. The worker dies with the host (PR_SET_PDEATHSIG, and ``--die-with-parent``).
Where the host can make one, the worker runs in its own cgroup (``cgroup.py``): its
processes and memory are capped as a whole, also for root, and ``kill()`` ends everything
left in the group. What ``none`` mode cannot do without a cgroup: a process a cell starts
in a new session that then escapes the subreaper (only possible by outliving a killed
worker between two scans); in ``none`` mode without or with a cgroup: processes
left running when the host itself is killed with SIGKILL (only the worker gets the
parent-death signal), and cells can read the host's ``/proc/<pid>/environ`` when they run
as the same user; the bwrap sandbox closes all three.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
import weakref

from . import protocol, sandbox, seccomp, wire
from .cgroup import worker_cgroup, WorkerCgroup
from .limits import WorkerLimits
from ..errors import WorkerStartFailed

_LOG = logging.getLogger(__name__)
_SECRET_NAME = re.compile(r'KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL', re.IGNORECASE)
_ENDPOINT_PREFIXES = ('OPENAI_', 'ANTHROPIC_', 'AZURE_OPENAI', 'GEMINI_', 'GOOGLE_API',
                      'MISTRAL_', 'GROQ_', 'TOGETHER_', 'OPENROUTER_', 'LLM_', 'LITELLM_',
                      'HF_', 'HUGGING_FACE')
START_TIMEOUT_S = 60.0
# A started message must arrive whole within this time (all its bytes, however they are
# spread out), or the worker is broken; a cell's timeout and the episode watchdog can only
# shorten it (``calls.CellState.message_deadline``).
MESSAGE_STALL_S = 5.0
SOCKET_BUFFER_BYTES = 4 * 1024 * 1024
# How long kill_tree waits for the killed processes to be gone.
KILL_WAIT_S = 2.0
# Workers are started from this one long-lived thread: the parent-death signal (and bwrap's
# --die-with-parent) fires when the *thread* that forked the child ends, so a worker forked
# by a short-lived thread (a pool task that ran one cell) would die with that thread.
_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix='pyrua-worker-spawner')


def scrubbed_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """
    Return ``environ`` without secrets and LLM endpoint settings (``none`` mode).

    Dropped: names containing KEY, TOKEN, SECRET, PASSWORD, PASSWD or CREDENTIAL, and
    names starting with an LLM provider prefix (``OPENAI_``, ``ANTHROPIC_``, ...).
    """
    env = {name: value for name, value in environ.items()
           if not _SECRET_NAME.search(name) and not name.upper().startswith(_ENDPOINT_PREFIXES)}
    # One BLAS thread: the worker shares a small machine with the host and the simulator.
    env.setdefault('OPENBLAS_NUM_THREADS', '1')
    env.setdefault('OMP_NUM_THREADS', '1')
    env['PYTHONDONTWRITEBYTECODE'] = '1'
    return env


def _process_table() -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """Return parent pid -> child pids, and session id -> pids, of every process in /proc."""
    children: dict[int, list[int]] = {}
    sessions: dict[int, list[int]] = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/stat', 'rb') as f:
                stat = f.read()
        except OSError:
            continue
        # The name may hold spaces and parentheses: the fields start after the last ')'.
        fields = stat[stat.rfind(b')') + 2:].split()
        if len(fields) > 3:
            children.setdefault(int(fields[1]), []).append(int(entry))
            sessions.setdefault(int(fields[3]), []).append(int(entry))
    return children, sessions


def descendants(pid: int) -> list[int]:
    """
    Return the pids below ``pid`` and in its session, parents before children.

    The session catches what a cell started and left behind when its parent died (it is
    re-parented to init but keeps the worker's session, unless it called setsid itself).
    """
    children, sessions = _process_table()
    found, todo = [], [pid, *(p for p in sessions.get(pid, ()) if p != pid)]
    seen = set(todo)
    found.extend(todo[1:])
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                found.append(child)
                todo.append(child)
    return found


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_tree(pid: int) -> None:
    """Stop ``pid`` and all its descendants (so none forks away), then SIGKILL them all."""
    stopped = {pid}
    _signal(pid, signal.SIGSTOP)
    for _ in range(100):
        new = [p for p in descendants(pid) if p not in stopped]
        if not new:
            break
        for p in new:
            _signal(p, signal.SIGSTOP)
            stopped.add(p)
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for p in stopped:
        _signal(p, signal.SIGKILL)
    # Return only once they are dead, so that "closed" means gone.
    deadline = time.monotonic() + KILL_WAIT_S
    left = [p for p in stopped if p != pid]
    while left and time.monotonic() < deadline:
        left = [p for p in left if not _exited(p)]
        if left:
            time.sleep(0.002)


def _exited(pid: int) -> bool:
    """Return True if ``pid`` is gone or a zombie."""
    try:
        with open(f'/proc/{pid}/stat', 'rb') as f:
            stat = f.read()
    except OSError:
        return True
    return stat[stat.rfind(b')') + 2:stat.rfind(b')') + 3] in (b'Z', b'X')


class WorkerProcess:
    """
    One running worker, connected by a socket pair.

    :param specs: primitive descriptions for ``robo`` (``robo.primitive_spec``).
    :param scratch_dir: the worker's working directory.
    :param limits: the worker's resource limits (``WorkerLimits``).
    :param mode: 'bwrap' (sandboxed) or 'none' (``sandbox.resolve_sandbox`` decides).
    """

    def __init__(self, specs: dict, scratch_dir: str, limits: WorkerLimits,
                 mode: str = 'none') -> None:
        self.mode = mode
        self.limits = limits
        host_sock, child_sock = socket.socketpair()
        for sock in (host_sock, child_sock):
            # Room for a whole camera frame, so a reply is one write and one read.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_BUFFER_BYTES)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SOCKET_BUFFER_BYTES)
        fd = child_sock.fileno()
        passed, filter_fd = [fd], None
        if mode == 'bwrap':
            filter_fd = seccomp.program_fd()
            passed += [filter_fd] if filter_fd is not None else []
            argv = sandbox.bwrap_command(
                [sandbox.python_executable(), '-m', 'pyrua_agent.runtime.worker', str(fd)],
                scratch_dir, limits, seccomp_fd=filter_fd)
            env, cwd = sandbox.sandbox_environment(), '/'
        else:
            argv = [sys.executable, '-m', 'pyrua_agent.runtime.worker', str(fd)]
            env, cwd = scrubbed_environment(os.environ), scratch_dir
        # The worker's caps as a whole (processes, memory), also where the host is root.
        self.cgroup = worker_cgroup(limits)
        if self.cgroup is not None:
            argv = self.cgroup.join_prefix() + argv
        # Its stderr is a pipe the host reads while it starts and then closes: nothing the
        # worker writes there later (e.g. through /proc/1/fd/2) lands in a host file.
        self._stderr_r, stderr_w = os.pipe()
        os.set_blocking(self._stderr_r, False)
        try:
            self._proc = _SPAWNER.submit(
                subprocess.Popen, argv, env=env, cwd=cwd, pass_fds=tuple(passed),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr_w,
                start_new_session=True).result()
        except BaseException:
            os.close(self._stderr_r)
            host_sock.close()
            if self.cgroup is not None:
                self.cgroup.remove()
            raise
        finally:
            child_sock.close()
            os.close(stderr_w)
            if filter_fd is not None:
                os.close(filter_fd)
        host_sock.settimeout(MESSAGE_STALL_S)
        self.sock = host_sock
        self.pid = self._proc.pid
        self.pidfd = os.pidfd_open(self.pid) if hasattr(os, 'pidfd_open') else None
        # Reaps the worker and frees the handles even if the owner forgets close().
        self._finalizer = weakref.finalize(self, _release, self._proc, self.sock, self.pidfd,
                                           self.cgroup)
        self.limit_bytes = limits.arg_bytes + protocol.MESSAGE_OVERHEAD_BYTES
        try:
            settings = {'memory_mb': limits.memory_mb, 'file_size_mb': limits.file_size_mb,
                        'open_files': limits.open_files, 'arg_bytes': limits.arg_bytes,
                        'processes': limits.processes if mode == 'bwrap' else None}
            protocol.send(self.sock, ['init', wire.to_tree(specs, 1 << 30, 'the primitives'),
                                      wire.to_tree(settings, 4096, 'the limits')])
            if not self.wait_readable(START_TIMEOUT_S):
                raise EOFError(f'no answer within {START_TIMEOUT_S:.0f} s')
            ready = self.recv()
            if ready[0] != 'ready':
                raise protocol.ProtocolError(f'{ready[0]!r} instead of ready')
            self.worker_pid = self._find_worker(ready[1])
        except (EOFError, OSError, protocol.ProtocolError) as exc:
            self.kill()
            tail = self._stderr_tail()
            self.close()
            raise WorkerStartFailed(
                f'cell worker did not start ({exc}); its stderr:\n{tail}'
                '\ncheck that `python -m pyrua_agent.runtime.worker` imports') from None
        os.close(self._stderr_r)
        self._stderr_r = None

    def _find_worker(self, inner_pid: int) -> int:
        """Return the host pid of the Python worker (below bwrap's processes in bwrap mode)."""
        if self.mode != 'bwrap':
            return self.pid
        for pid in descendants(self.pid):
            try:
                with open(f'/proc/{pid}/status') as f:
                    nspid = next((line.split()[1:] for line in f if line.startswith('NSpid:')),
                                 [])
            except OSError:
                continue
            if nspid and nspid[-1] == str(inner_pid):
                return pid
        raise protocol.ProtocolError(f'no process with pid {inner_pid} in the sandbox')

    def recv(self, deadline: protocol.Deadline | None = None) -> list:
        """
        Read one message from the worker, whole within ``deadline``.

        :param deadline: when it must be complete (default: ``MESSAGE_STALL_S`` from now).
        :raises protocol.MessageStalled: when it is not.
        """
        if deadline is None:
            deadline = stall_deadline()
        return protocol.recv_worker(self.sock, self.limit_bytes, deadline,
                                    self.limits.arg_bytes)

    def wait_readable(self, timeout_s: float) -> bool:
        """Return True once the worker has something to read (or the socket closed)."""
        from multiprocessing import connection

        return bool(connection.wait([self.sock], timeout_s))

    def alive(self) -> bool:
        """Return True while the process runs (without reaping it)."""
        if self._proc.returncode is not None:
            return False
        try:
            return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
        except ChildProcessError:
            return False

    def wait_exit(self, timeout_s: float) -> bool:
        """
        Wait up to ``timeout_s`` for the worker to exit by itself; return True if it did.

        It is not reaped, so its pid (and session id) cannot be reused before ``kill()``.
        """
        deadline = time.monotonic() + timeout_s
        while self.alive():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        return True

    def exit_description(self) -> str:
        """Describe how the worker ended, e.g. 'killed by signal SIGSEGV'."""
        try:
            code = self._proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            return 'still running'
        if self.mode == 'bwrap' and code > 128:
            code = 128 - code  # bwrap exits 128 + n when its command died of signal n
        if code < 0:
            try:
                return f'killed by signal {signal.Signals(-code).name}'
            except ValueError:
                return f'killed by signal {-code}'
        return f'exit code {code}'

    def waitables(self) -> list:
        """Return what ``connection.wait`` should watch: the socket and the process."""
        return [self.sock] + ([self.pidfd] if self.pidfd is not None else [])

    def interrupt(self) -> None:
        """Send SIGINT to the worker (raises CellInterrupted in pure-Python cell code)."""
        if self.alive():
            _signal(self.worker_pid, signal.SIGINT)

    def kill(self) -> None:
        """Kill the worker and every process below it or in its session, and reap it."""
        if self._proc.returncode is None:
            # Not reaped yet (perhaps a zombie): the pid is still this worker's.
            kill_tree(self.pid)
        if self.cgroup is not None:
            self.cgroup.kill()  # what left the tree and the session is still in the group
        try:
            self._proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            _LOG.warning('cell worker %d did not exit 5 s after SIGKILL', self.pid)

    def _stderr_tail(self, limit: int = 2000) -> str:
        """Return the end of what the process wrote to its real stderr while starting."""
        chunks = []
        try:
            while chunk := os.read(self._stderr_r, 65536):
                chunks.append(chunk)
        except (BlockingIOError, OSError):
            pass
        return b''.join(chunks)[-limit:].decode('utf-8', 'replace')

    def close(self) -> None:
        """Kill the worker's whole process tree and free the handles."""
        # No polite 'close' message: a worker that exits by itself first would leave the
        # processes its cells started to init instead of to this kill.
        self._finalizer()
        if self._stderr_r is not None:
            os.close(self._stderr_r)
            self._stderr_r = None


def stall_deadline() -> protocol.Deadline:
    """Return the deadline of a message that starts now: ``MESSAGE_STALL_S`` for all of it."""
    at = time.monotonic() + MESSAGE_STALL_S
    why = f'a message did not arrive whole within {MESSAGE_STALL_S:.1f} s'
    return lambda: (at, why)


def _release(proc: subprocess.Popen, sock: socket.socket, pidfd: int | None,
             cgroup: WorkerCgroup | None) -> None:
    """Kill the worker's whole process tree, reap it, close its handles, remove its group."""
    if proc.returncode is None:
        kill_tree(proc.pid)
    try:
        proc.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        _LOG.warning('cell worker %d did not exit 5 s after SIGKILL', proc.pid)
    if cgroup is not None:
        cgroup.remove()
    sock.close()
    if pidfd is not None:
        os.close(pidfd)

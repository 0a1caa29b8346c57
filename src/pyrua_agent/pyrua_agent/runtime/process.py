"""
The host's handle on one cell worker process: start, scrubbed environment, interrupt, kill.

The worker is a fresh interpreter (``python -m pyrua_agent.runtime.worker``), the same
isolation as multiprocessing's 'spawn' start method (never 'fork': the host holds threads
and OpenGL contexts), started with ``subprocess`` so that its environment and working
directory can be set without touching the host's.
"""

from __future__ import annotations

from collections.abc import Mapping
import logging
from multiprocessing import connection
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import weakref

from . import protocol
from ..errors import WorkerStartFailed

_LOG = logging.getLogger(__name__)
_SECRET_NAME = re.compile(r'KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL', re.IGNORECASE)
_ENDPOINT_PREFIXES = ('OPENAI_', 'ANTHROPIC_', 'AZURE_OPENAI', 'GEMINI_', 'GOOGLE_API',
                      'MISTRAL_', 'GROQ_', 'TOGETHER_', 'OPENROUTER_', 'LLM_', 'LITELLM_',
                      'HF_', 'HUGGING_FACE')
START_TIMEOUT_S = 60.0
SOCKET_BUFFER_BYTES = 4 * 1024 * 1024


def scrubbed_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """
    Return ``environ`` without secrets and LLM endpoint settings.

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


class WorkerProcess:
    """
    One running worker, connected by a socket pair.

    :param specs: primitive descriptions for ``robo`` (``robo.primitive_spec``).
    :param scratch_dir: the worker's working directory.
    :param memory_limit_mb: address-space limit of the worker (None: no limit).
    """

    def __init__(self, specs: dict, scratch_dir: str, memory_limit_mb: int | None) -> None:
        host_sock, child_sock = socket.socketpair()
        for sock in (host_sock, child_sock):
            # Room for a whole camera frame, so a reply is one write and one read.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_BUFFER_BYTES)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SOCKET_BUFFER_BYTES)
        self._stderr_file = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                [sys.executable, '-m', 'pyrua_agent.runtime.worker', str(child_sock.fileno())],
                env=scrubbed_environment(os.environ), cwd=scratch_dir,
                pass_fds=(child_sock.fileno(),), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=self._stderr_file, start_new_session=True)
        except BaseException:
            self._stderr_file.close()
            host_sock.close()
            raise
        finally:
            child_sock.close()
        self.conn = connection.Connection(host_sock.detach())
        self.pid = self._proc.pid
        self.pidfd = os.pidfd_open(self.pid) if hasattr(os, 'pidfd_open') else None
        sys_path = [p for p in sys.path if p and os.path.isdir(p)]
        # Reaps the worker and frees the handles even if the owner forgets close().
        self._finalizer = weakref.finalize(self, _release, self._proc, self.conn, self.pidfd)
        try:
            protocol.send(self.conn, ('init', specs, sys_path, memory_limit_mb))
            if not self.conn.poll(START_TIMEOUT_S):
                raise EOFError(f'no answer within {START_TIMEOUT_S:.0f} s')
            protocol.recv_plain(self.conn)
        except (EOFError, OSError, ValueError) as exc:
            self.kill()
            tail = self._stderr_tail()
            self.close()
            raise WorkerStartFailed(
                f'cell worker did not start ({exc}); its stderr:\n{tail}'
                '\ncheck that `python -m pyrua_agent.runtime.worker` imports') from None
        self._stderr_file.close()

    def alive(self) -> bool:
        """Return True while the process runs (without reaping it)."""
        if self._proc.returncode is not None:
            return False
        try:
            return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
        except ChildProcessError:
            return False

    def exit_description(self) -> str:
        """Describe how the process ended, e.g. 'killed by signal SIGSEGV'."""
        try:
            code = self._proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            return 'still running'
        if code < 0:
            try:
                return f'killed by signal {signal.Signals(-code).name}'
            except ValueError:
                return f'killed by signal {-code}'
        return f'exit code {code}'

    def waitables(self) -> list:
        """Return what ``connection.wait`` should watch: the socket and the process."""
        return [self.conn] + ([self.pidfd] if self.pidfd is not None else [])

    def interrupt(self) -> None:
        """Send SIGINT (raises CellInterrupted in pure-Python cell code)."""
        if self.alive():
            try:
                os.kill(self.pid, signal.SIGINT)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        """Kill the process and its session (subprocesses a cell started) and reap it."""
        if self._proc.returncode is None:
            # The group outlives a dead leader until it is reaped, so this also ends the
            # subprocesses a cell started.
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self._proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            _LOG.warning('cell worker %d did not exit 5 s after SIGKILL', self.pid)

    def _stderr_tail(self, limit: int = 2000) -> str:
        """Return the end of what the process wrote to its real stderr while starting."""
        self._stderr_file.seek(0, os.SEEK_END)
        size = self._stderr_file.tell()
        self._stderr_file.seek(max(0, size - limit))
        return self._stderr_file.read().decode('utf-8', 'replace')

    def close(self, timeout_s: float = 2.0) -> None:
        """Ask the worker to exit, kill it if it does not, and free the handles."""
        if self.alive():
            try:
                protocol.send(self.conn, ('close',))
                self._proc.wait(timeout=timeout_s)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._finalizer()
        self._stderr_file.close()


def _release(proc: subprocess.Popen, conn: connection.Connection, pidfd: int | None) -> None:
    """Kill the worker's process group, reap it, and close its handles."""
    if proc.returncode is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        proc.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        _LOG.warning('cell worker %d did not exit 5 s after SIGKILL', proc.pid)
    conn.close()
    if pidfd is not None:
        os.close(pidfd)

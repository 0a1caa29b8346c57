"""
``CellRuntime``: runs the model's cells in a worker process against host-side primitives.

Cell semantics (DESIGN.md): a persistent namespace with ``robo``, ``np`` and ``math``;
only printed output returns, capped with head and tail kept; an uncaught exception ends the
cell with a traceback of cell frames only; ``robo.show`` images come back in call order
with placeholders; the success guard stops a cell before an acting primitive once the task
is done; ``cancel()`` (the episode watchdog) and the optional ``cell_timeout_s`` cancel the
active primitive through its token and stop the cell. Pure-Python code is interrupted with
SIGINT and the worker is killed if it does not stop within ``interrupt_grace_s``; a dead
worker is replaced at once and the model is told its variables are gone.

The worker runs in the bubblewrap sandbox where it works (``sandbox='auto'``, the default;
see ``sandbox.py``), and the host reads only plain, size-capped data from it
(``protocol.py``, ``wire.py``): a message that breaks the protocol ends the worker and the
cell says so.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
import logging
from multiprocessing import connection
import os
import secrets
import shutil
import tempfile
import threading
import time
import weakref

from pyrua_primitives.arguments import SignatureCheck
from pyrua_primitives.naming import unknown_name

from . import protocol
from .calls import CellState, serve_call
from .limits import WorkerLimits
from .output import terminal_safe, valid_unicode
from .process import WorkerProcess
from .results import CellResult
from .robo import primitive_spec
from .sandbox import resolve_sandbox
from .transport import InProcessTransport, Transport
from ..errors import RuntimeClosed

_LOG = logging.getLogger(__name__)


class CellRuntime:
    """
    Execute cells for one episode.

    :param primitives: primitive name to host-side callable (``robo.<name>``).
    :param acting: names of primitives that act on the robot (guarded by ``success_check``).
    :param success_check: evaluator's check, run on the host before each acting primitive.
    :param cell_timeout_s: per-cell wall-clock limit in seconds (None: off).
    :param max_output_chars: output kept per cell; beyond it head and tail are kept.
    :param sandbox: 'auto' (bubblewrap where it works here, else 'none' with one warning),
        'bwrap' (refuse to run without it) or 'none' (process isolation only).
    :param limits: the worker's resource limits and what a cell may send (``WorkerLimits``).
    :param interrupt_grace_s: how long a stopped cell may take to end before the next step
        (SIGINT, then killing the worker), and how long a cancelled primitive may take.
    :param transport: runs the primitives' goals (default: in-process threads).
    """

    def __init__(self, primitives: Mapping[str, Callable], acting: Collection[str] = (),
                 success_check: Callable[[], bool] | None = None,
                 cell_timeout_s: float | None = None, max_output_chars: int = 8000, *,
                 sandbox: str = 'auto', limits: WorkerLimits | None = None,
                 interrupt_grace_s: float = 2.0, transport: Transport | None = None) -> None:
        if 'show' in primitives:
            raise ValueError("primitive name 'show' is reserved for robo.show; rename it")
        for name in acting:
            if name not in primitives:
                raise ValueError(unknown_name('acting primitive', name, primitives))
        if cell_timeout_s is not None and cell_timeout_s <= 0:
            raise ValueError(f'cell_timeout_s {cell_timeout_s} vs minimum > 0; use None to '
                             'switch the per-cell limit off')
        if max_output_chars < 200:
            raise ValueError(f'max_output_chars {max_output_chars} vs minimum 200; the model '
                             'needs room for a traceback')
        if interrupt_grace_s <= 0:
            raise ValueError(f'interrupt_grace_s {interrupt_grace_s} vs minimum > 0')
        self.acting = frozenset(acting)
        self.success_check = success_check
        self.cell_timeout_s = cell_timeout_s
        self.max_output_chars = max_output_chars
        self.limits = limits if limits is not None else WorkerLimits()
        self.sandbox = resolve_sandbox(sandbox)
        self.interrupt_grace_s = interrupt_grace_s
        self.has_image = 'image' in primitives
        self.transport = transport if transport is not None else InProcessTransport(primitives)
        self._specs = {name: primitive_spec(func) for name, func in primitives.items()}
        # Every call's values are checked against these before they reach anything else.
        self.argument_checks = {name: check for name, func in primitives.items()
                                if (check := SignatureCheck.of(name, func)) is not None}
        self._lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._active: CellState | None = None
        self._cells = 0
        self._closed = False
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self.scratch_dir = tempfile.mkdtemp(prefix='pyrua-episode-')
        self._finalizer = weakref.finalize(self, _remove, self.scratch_dir,
                                           (self._wake_r, self._wake_w))
        self._worker: WorkerProcess | None = None
        try:
            self._worker = self._start_worker()
        except BaseException:
            self.close()
            raise

    def _start_worker(self) -> WorkerProcess:
        return WorkerProcess(self._specs, self.scratch_dir, self.limits, self.sandbox)

    @property
    def worker_pid(self) -> int | None:
        """Return the process id of the current worker (None once closed)."""
        return None if self._closed else self._worker.worker_pid

    def run_cell(self, code: str) -> CellResult:
        """
        Run ``code`` as the next cell and return what the model will read.

        :param code: Python source of the cell.
        :returns: the cell's result.
        :raises RuntimeClosed: after ``close()``.
        :raises RuntimeError: if another thread is running a cell on this runtime.
        """
        if self._closed:
            raise RuntimeClosed('run_cell() after close(); create a new CellRuntime')
        if not isinstance(code, str):
            raise TypeError(f'code must be str, not {type(code).__name__}')
        if not self._run_lock.acquire(blocking=False):
            if self._closed:  # close() holds the lock while it ends the worker
                raise RuntimeClosed('run_cell() after close(); create a new CellRuntime')
            raise RuntimeError('run_cell() while another cell runs; cells run one at a time')
        try:
            return self._run(code)
        finally:
            self._run_lock.release()

    def _run(self, code: str) -> CellResult:
        with self._lock:
            # Checked and claimed under the lock close() takes, so close() either sees this
            # cell (and stops it) or this cell sees the runtime closed.
            if self._closed:
                raise RuntimeClosed('run_cell() after close(); create a new CellRuntime')
            self._cells += 1
            cell = CellState(self, self._cells, self._worker)
            self._active = cell
        try:
            if not self._worker.alive():
                how = self._worker.exit_description()
                self._replace_worker()
                cell.worker = self._worker
                cell.namespace_lost = True
                cell.output.write(f'[note: the cell worker process ended between cells ({how}); '
                                  'all variables from earlier cells are lost; robo, np and '
                                  'math are ready in a fresh namespace]\n')
            self._drain_between_cells(cell)
            cell.run_id = secrets.randbits(62)
            protocol.send(self._worker.sock, ['run', cell.run_id, cell.index,
                                              valid_unicode(code)])
            self._drive(cell)
        except BaseException:
            # The host itself failed (or was interrupted): the worker's state is unknown.
            self._replace_worker()
            raise
        finally:
            with self._lock:
                self._active = None
        return cell.result()

    def _drain_between_cells(self, cell: CellState) -> None:
        worker = self._worker
        why = ''
        try:
            while worker.wait_readable(0):
                message = worker.recv()
                if message[0] != 'out':
                    why = (f"it sent a '{message[0]}' message between cells, where only output "
                           'may come (forged by cell code?)')
                    break
                cell.output.write(terminal_safe(message[1]))
        except (EOFError, ConnectionError):
            pass
        except (OSError, protocol.ProtocolError) as exc:
            why = f'it sent a message that breaks the protocol ({exc})'
        if why:
            worker.kill()
            self._replace_worker()
            cell.worker = self._worker
            cell.namespace_lost = True
            cell.output.write(f'[note: the cell worker process was replaced before this cell: '
                              f'{why}; all variables from earlier cells are lost; robo, np '
                              'and math are ready in a fresh namespace]\n')
        try:
            while os.read(self._wake_r, 4096):
                pass
        except BlockingIOError:
            pass

    def _drive(self, cell: CellState) -> None:
        worker = self._worker
        waitables = worker.waitables() + [self._wake_r]
        while True:
            ready = connection.wait(waitables, cell.next_timeout(time.monotonic()))
            if self._wake_r in ready:
                try:
                    os.read(self._wake_r, 4096)
                except BlockingIOError:
                    pass
            if worker.sock in ready:
                try:
                    message = worker.recv(cell.message_deadline())
                except (EOFError, ConnectionError):
                    self._worker_died(cell, killed=False)
                    return
                except protocol.MessageStalled as exc:
                    _LOG.error('cell worker stalled inside a message: %s', exc)
                    self._worker_died(cell, killed=True,
                                      why=f'it stalled inside a message: {exc}')
                    return
                except Exception as exc:  # a protocol error
                    _LOG.error('cell worker sent an unreadable message: %s', exc)
                    self._worker_died(cell, killed=True,
                                      why=f'it sent an unreadable message ({exc})')
                    return
                kind = message[0]
                if kind == 'out':
                    cell.output.write(terminal_safe(message[1]))
                elif kind == 'call':
                    serve_call(cell, message)
                    if cell.worker_gone:
                        self._worker_died(cell, killed=bool(cell.violation),
                                          why=cell.violation)
                        return
                elif kind == 'done' and message[1] == cell.run_id:
                    cell.finish(message)
                    return
                else:
                    self._worker_died(cell, killed=True, why=(
                        f"it sent a '{kind}' message that answers no request of this cell "
                        '(forged by cell code?)'))
                    return
            elif worker.pidfd is not None and worker.pidfd in ready:
                self._worker_died(cell, killed=False)
                return
            action = cell.escalation(time.monotonic())
            if action == 'interrupt':
                worker.interrupt()
            elif action == 'kill':
                worker.kill()
                self._worker_died(cell, killed=True)
                return

    def _worker_died(self, cell: CellState, killed: bool, why: str = '') -> None:
        old = self._worker
        if not killed:
            # It is ending by itself: let it finish, so its own exit status is reported.
            old.wait_exit(1.0)
        old.kill()
        how = why or old.exit_description()
        self._replace_worker()
        cell.worker_died(terminal_safe(how), killed and not why, protocol_broken=bool(why))

    def _replace_worker(self) -> None:
        old = self._worker
        if old is not None:
            old.close()
        if not self._closed:
            self._worker = self._start_worker()

    def cancel(self, reason: str = 'the episode watchdog stopped it') -> bool:
        """
        Cancel the active primitive through its cancel token and stop the running cell.

        Safe to call from any thread.

        :param reason: why, as the model will read it.
        :returns: True if a cell was running.
        """
        with self._lock:
            cell = self._active
            if cell is None:
                return False
            cell.request_stop('episode_cancelled', f'episode cancelled: {reason}')
        try:
            os.write(self._wake_w, b'c')
        except BlockingIOError:
            pass
        return True

    def request_stop_locked(self, cell: CellState, kind: str, message: str) -> None:
        """Request a stop from the runtime's own thread (takes the lock)."""
        with self._lock:
            cell.request_stop(kind, message)

    def close(self) -> None:
        """Cancel any running cell, end the worker and remove the scratch directory."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            cell = self._active
            if cell is not None:
                cell.request_stop('episode_cancelled', 'episode cancelled: the runtime was closed')
        if cell is not None:
            try:
                os.write(self._wake_w, b'c')
            except BlockingIOError:
                pass
        # Let a running cell wind down (its primitive cancelled, SIGINT, then SIGKILL after
        # the grace periods) before its worker goes away under it.
        finished = self._run_lock.acquire(timeout=2 * self.interrupt_grace_s + 5.0)
        try:
            if self._worker is not None:
                self._worker.close()
        finally:
            if finished:
                self._run_lock.release()
        self._finalizer()

    def __enter__(self) -> CellRuntime:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        state = 'closed' if self._closed else f'worker pid {self._worker.worker_pid}'
        return f'<CellRuntime {len(self._specs)} primitives, {self._cells} cells, {state}>'


def _remove(scratch_dir: str, fds: tuple[int, ...]) -> None:
    """Remove the episode's scratch directory and close the wake-up pipe."""
    shutil.rmtree(scratch_dir, ignore_errors=True)
    for fd in fds:
        os.close(fd)

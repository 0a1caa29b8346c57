"""
The cell worker: a separate process that holds the namespace and executes cells.

Started by ``process.WorkerProcess`` as ``python -m pyrua_agent.runtime.worker <fd>``
with a scrubbed environment in the episode's scratch directory. Printed text is streamed
to the host in chunks; ``robo.<name>(...)`` sends a call and blocks until the host replies.
The host interrupts pure-Python code with SIGINT, which raises ``CellInterrupted`` in the
cell (never inside the protocol code, where it is held until a safe point).

This isolates crashes, hangs and memory blow-ups from the host. The OS sandbox around it
(bubblewrap, ``sandbox.py``) is what keeps cell code from the host's files and processes;
without it cell code runs as the host's user. At start the worker sets its resource limits,
asks to be killed when its parent dies and becomes a child subreaper, so that everything a
cell starts stays below it, where the host's ``kill_tree`` finds it.
"""

from __future__ import annotations

import builtins
import io
import linecache
import math
import os
import signal
import socket
import sys
import threading
import time
import traceback

import numpy as np
from pyrua_primitives.errors import PrimitiveError

from . import process_ties, protocol, wire
from . import robo as robo_module
from .fd_capture import FdCapture
from .output import valid_unicode
from ..errors import (
    CellInterrupted,
    CellStop,
    CellTimeout,
    EpisodeCancelled,
    PrimitiveFailed,
    TaskComplete,
)

FLUSH_CHARS = protocol.OUT_CHUNK_CHARS
# Messages from the host are trusted, but still read with a bound.
HOST_MESSAGE_LIMIT = 1 << 31
FLUSH_INTERVAL_S = 0.005
STOP_KINDS = {'task_complete': TaskComplete, 'episode_cancelled': EpisodeCancelled,
              'cell_timeout': CellTimeout}
# Code in these files talks to the host; an interrupt there would tear a message.
_PROTECTED_FILES = frozenset({__file__, protocol.__file__, wire.__file__, robo_module.__file__,
                              socket.__file__})


sendable_text = valid_unicode


class _State:
    """What the signal handler and the facade need to know about the running cell."""

    def __init__(self) -> None:
        self.in_user_code = False
        self.interrupt_pending = False
        self.stop: CellStop | None = None


class _Channel:
    """The worker's end of the socket: output chunks and primitive calls, in order."""

    def __init__(self, conn: socket.socket, state: _State, arg_bytes: int) -> None:
        self._conn = conn
        self._arg_bytes = arg_bytes
        self._state = state
        self._lock = threading.Lock()
        self._pending: list[str] = []
        self._pending_len = 0
        self._last_flush = float('-inf')
        self._call_id = 0
        self._main = threading.main_thread()

    def detach(self) -> None:
        """In a process forked by a cell: drop output and refuse robo (the parent talks)."""
        self._lock = threading.Lock()
        self._conn = None
        self._pending.clear()
        self._pending_len = 0

    def write(self, text: str) -> None:
        if self._conn is None:
            return
        with self._lock:
            self._pending.append(text)
            self._pending_len += len(text)
            now = time.monotonic()
            if self._pending_len >= FLUSH_CHARS or now - self._last_flush >= FLUSH_INTERVAL_S:
                self._send_out(self._take())
                self._last_flush = now
        raise_if_interrupted(self._state)

    def flush(self) -> None:
        if self._conn is None:
            return
        with self._lock:
            if self._pending:
                self._send_out(self._take())
                self._last_flush = time.monotonic()
        raise_if_interrupted(self._state)

    def _take(self) -> str:
        text = sendable_text(''.join(self._pending))
        self._pending.clear()
        self._pending_len = 0
        return text

    def _send_out(self, text: str) -> None:
        """Send ``text`` in 'out' messages of at most FLUSH_CHARS characters."""
        for start in range(0, len(text), FLUSH_CHARS):
            protocol.send(self._conn, ['out', text[start:start + FLUSH_CHARS]])

    def _take_small(self) -> str:
        """Return the pending text if it fits in one message, else send it first."""
        text = self._take()
        if len(text) <= FLUSH_CHARS:
            return text
        self._send_out(text)
        return ''

    def call(self, name: str, args: tuple, kwargs: dict):
        if threading.current_thread() is not self._main:
            raise RuntimeError(f'robo.{name} was called from thread '
                               f'{threading.current_thread().name!r}; call robo only from the '
                               'cell itself, not from threads it starts')
        if self._conn is None:
            raise RuntimeError(f'robo.{name} was called in a process forked by the cell; '
                               "call robo only from the cell's own process")
        if self._state.stop is not None:
            raise self._state.stop
        buffers: list = []
        try:
            trees = wire.to_tree((args, kwargs), self._arg_bytes,
                                 f'the arguments of robo.{name}', buffers)
        except wire.WireError as exc:
            raise TypeError(f'robo.{name} arguments must be plain data (numbers, strings, '
                            'lists, tuples, dicts, numpy arrays, robo results) of at most '
                            f'{self._arg_bytes} bytes (WorkerLimits.arg_bytes): {exc}') from None
        self._call_id += 1
        call_id = self._call_id
        with self._lock:
            protocol.send(self._conn, ['call', call_id, name, trees[1], trees[2],
                                       self._take_small(), [b.nbytes for b in buffers]],
                          buffers)
            self._last_flush = time.monotonic()
            while True:
                reply = protocol.recv(self._conn, HOST_MESSAGE_LIMIT)
                received = (protocol.recv_buffers(self._conn, reply[4], HOST_MESSAGE_LIMIT)
                            if reply[2] == 'ok' else [])
                if reply[1] == call_id:
                    break
        raise_if_interrupted(self._state)
        kind = reply[2]
        if kind == 'ok':
            try:
                return wire.from_tree(reply[3], received)
            except wire.WireError as exc:
                raise TypeError(f'the result of robo.{name} could not be rebuilt in the cell: '
                                f'{exc}') from None
        if kind == 'raise':
            raise _rebuild_error(reply[3], reply[4])
        self._state.stop = STOP_KINDS[reply[3]](reply[4])
        raise self._state.stop

    def finish(self, message: list) -> None:
        if self._conn is None:
            return
        with self._lock:
            protocol.send(self._conn, message[:2] + [self._take_small()] + message[2:])


def _rebuild_error(type_name: str, message: str) -> Exception:
    if type_name == 'PrimitiveError':  # a call the host refused before it ran
        return PrimitiveError(message)
    builtin = getattr(builtins, type_name, None)
    if isinstance(builtin, type) and issubclass(builtin, Exception):
        try:
            return builtin(message)
        except Exception:
            pass
    return PrimitiveFailed(type_name, message)


def raise_if_interrupted(state: _State) -> None:
    """Raise the interrupt that arrived while protocol code ran, now that it is safe."""
    if (state.interrupt_pending and state.in_user_code
            and threading.current_thread() is threading.main_thread()):
        state.interrupt_pending = False
        raise CellInterrupted('interrupted by the host')


class _Stream(io.TextIOBase):
    """``sys.stdout``/``sys.stderr`` of the worker: text goes to the channel, in order."""

    def __init__(self, channel: _Channel, name: str) -> None:
        super().__init__()
        self._channel = channel
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    def encoding(self) -> str:
        return 'utf-8'

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def flush(self) -> None:
        self._channel.flush()

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f'write() argument must be str, not {type(text).__name__}')
        if text:
            self._channel.write(text)
        return len(text)


def format_cell_error(exc: BaseException) -> str:
    """Format ``exc`` with cell frames only: cell line numbers and source, type and message."""
    if isinstance(exc, SyntaxError):
        return ''.join(traceback.format_exception_only(type(exc), exc))
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if f.filename.startswith('<cell ')]
    lines = ['Traceback (most recent call last):\n'] if frames else []
    lines += traceback.StackSummary.from_list(frames).format()
    message = str(exc)
    lines.append(f'{type(exc).__name__}: {message}\n' if message else f'{type(exc).__name__}\n')
    if isinstance(exc, SystemExit):
        lines.append('(sys.exit() ends only this cell; your variables are kept)\n')
    return ''.join(lines)


def _where(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if f.filename.startswith('<cell ')]
    if not frames:
        return ''
    last = frames[-1]
    return f'line {last.lineno} ({(last.line or "").strip()[:80]})'


class Worker:
    """The namespace and the cell loop of one worker process."""

    def __init__(self, conn: socket.socket, specs: dict, arg_bytes: int) -> None:
        self.state = _State()
        self.channel = _Channel(conn, self.state, arg_bytes)
        self.conn = conn
        self.robo = robo_module.Robo(specs, self.channel.call)
        self.fd_capture: FdCapture | None = None
        self.pid = os.getpid()
        os.register_at_fork(after_in_child=self.channel.detach)
        # A child forked by cell code dies with the worker (subprocesses exec'd by C code
        # are found by the host's kill_tree instead).
        os.register_at_fork(after_in_child=process_ties.die_with_parent)
        self.namespace = {'__name__': '__main__', '__builtins__': builtins,
                          'robo': self.robo, 'np': np, 'math': math}

    def _on_sigint(self, _signum, frame) -> None:
        if not self.state.in_user_code:
            return
        if frame is not None and frame.f_code.co_filename in _PROTECTED_FILES:
            self.state.interrupt_pending = True
            return
        self.state.interrupt_pending = False
        raise CellInterrupted('interrupted by the host')

    def run_cell(self, run_id: int, index: int, code: str) -> None:
        filename = f'<cell {index}>'
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        threads_before = set(threading.enumerate())
        self.state.stop = None
        self.state.interrupt_pending = False
        error: BaseException | None = None
        try:
            self.state.in_user_code = True
            exec(compile(code, filename, 'exec'), self.namespace)
        except BaseException as exc:  # the cell's own failure; reported to the model
            self.state.in_user_code = False
            error = exc
        finally:
            self.state.in_user_code = False
            if os.getpid() != self.pid:
                # A child forked by the cell ran to the cell's end; only the parent goes on.
                os._exit(0)
        if self.fd_capture is not None:
            self.fd_capture.drain()
        notes = self._notes(threads_before)
        if error is None:
            self.channel.finish(['done', run_id, None, '', '', False, notes])
        else:
            is_stop = isinstance(error, CellStop)
            try:
                text = '' if is_stop else format_cell_error(error)
            except Exception:  # a cell's exception whose str() itself fails
                text = f'{type(error).__name__}: <the message could not be formatted>\n'
            self.channel.finish(['done', run_id, sendable_text(type(error).__name__),
                                 sendable_text(text), sendable_text(_where(error)), is_stop,
                                 sendable_text(notes)])
        error = None

    def _notes(self, threads_before: set) -> str:
        notes = []
        if self.namespace.get('robo') is not self.robo:
            self.namespace['robo'] = self.robo
            notes.append('note: `robo` was deleted or rebound in this cell; it is restored '
                         'for the next cell.\n')
        for name, module in (('np', np), ('math', math)):
            if name not in self.namespace:
                self.namespace[name] = module
        started = [t for t in threading.enumerate()
                   if t not in threads_before and t.is_alive()]
        if started:
            names = ', '.join(t.name for t in started[:5])
            notes.append(f'note: {len(started)} thread(s) started by this cell still run '
                         f'({names}); they cannot call robo, and what they print appears in '
                         'later cells.\n')
        return ''.join(notes)

    def serve(self) -> None:
        signal.signal(signal.SIGINT, self._on_sigint)
        protocol.send(self.conn, ['ready', os.getpid()])
        while True:
            try:
                message = protocol.recv(self.conn, HOST_MESSAGE_LIMIT)
            except (EOFError, OSError, protocol.ProtocolError):
                return
            if message[0] == 'run':
                self.run_cell(message[1], message[2], message[3])
            elif message[0] == 'close':
                return


def main(argv: list[str]) -> None:
    """Run the worker on the socket whose descriptor is ``argv[1]``."""
    parent_pid = os.getppid()
    process_ties.tie_to_parent(parent_pid)
    fd = int(argv[1])
    os.set_inheritable(fd, False)
    conn = socket.socket(fileno=fd)
    conn.setblocking(True)
    _kind, specs, limits = (wire.from_tree(tree) if i else tree for i, tree in
                            enumerate(protocol.recv(conn, HOST_MESSAGE_LIMIT)))
    process_ties.set_limits(limits)
    threading.Thread(target=process_ties.watch_parent, args=(parent_pid,), name='parent-watch',
                     daemon=True).start()
    wire.result_types()  # before any cell: imports done while the file system is trusted
    worker = Worker(conn, specs, limits['arg_bytes'])
    sys.stdin = io.StringIO('')
    sys.stdout = _Stream(worker.channel, '<stdout>')
    sys.stderr = _Stream(worker.channel, '<stderr>')
    worker.fd_capture = FdCapture(worker.channel.write)
    worker.serve()
    # Threads a cell left running must not keep the process alive.
    os._exit(0)


if __name__ == '__main__':
    main(sys.argv)

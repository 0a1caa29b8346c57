"""
Host-side state of one running cell, and how a ``robo`` call from the worker is served.

A call is checked (stop requested? success guard before an acting primitive?), run as a
goal on the transport while the host keeps watching for cancel and timeout, recorded, and
answered with the value, the error (type name and message) or a stop.
"""

from __future__ import annotations

import logging
import time
from typing import Any, TYPE_CHECKING

import numpy as np
from pyrua_primitives.arguments import MAX_TEXT_CHARS
from pyrua_primitives.errors import PrimitiveError

from . import protocol, wire
from .output import CappedText, terminal_safe
from .process import MESSAGE_STALL_S
from .results import CellResult, ImageObservation, PrimitiveCall
from .values import call_text, failure_text, message_text, recorded, short_repr

if TYPE_CHECKING:
    from .cell_runtime import CellRuntime
    from .process import WorkerProcess

_LOG = logging.getLogger(__name__)
GOAL_POLL_S = 0.05
# The most bytes a primitive's result may take on its way to the cell (an image is ~1 MB).
RESULT_BYTES = 256 * 1024 * 1024


def _show_args(camera: str, note: str = '') -> tuple[str, str]:
    if not isinstance(camera, str) or not isinstance(note, str):
        raise TypeError(f'robo.show(camera, note) takes strings, got '
                        f'{type(camera).__name__} and {type(note).__name__}')
    return camera, note


class CellState:
    """Everything the host tracks while one cell runs."""

    def __init__(self, runtime: CellRuntime, index: int, worker: WorkerProcess) -> None:
        self.runtime = runtime
        self.index = index
        self.worker = worker
        self.started = time.monotonic()
        self.output = CappedText(runtime.max_output_chars)
        self.images: list[tuple[str, str, np.ndarray, int]] = []
        self.calls: list[PrimitiveCall] = []
        self.error: str | None = None
        self.stop_reason: str | None = None
        self.stop_message = ''
        self.stop_at: float | None = None
        self.goal = None
        self.escalate_at: float | None = None
        self.interrupted = False
        self.namespace_lost = False
        self.worker_gone = False
        self.violation = ''
        self.run_id = 0
        self.duration_s = 0.0

    def request_stop(self, kind: str, message: str) -> None:
        """Record the first stop request and cancel the active goal (caller holds the lock)."""
        if self.stop_reason is not None:
            return
        if self.goal is not None:
            message += f'; the running robo.{self.goal.name} was cancelled'
            self.goal.cancel(kind)
        self.stop_reason = kind
        self.stop_message = message
        self.stop_at = time.monotonic()

    def message_deadline(self) -> protocol.Deadline:
        """
        Return the deadline of a message from the worker that starts now.

        All of it must arrive within ``MESSAGE_STALL_S``; a cell timeout that passes, or a
        stop (the episode watchdog, ``close``), leaves it ``interrupt_grace_s`` more. A
        worker that stalls inside a message is killed at its deadline.
        """
        began = time.monotonic()
        grace = self.runtime.interrupt_grace_s

        def deadline() -> tuple[float, str]:
            at = began + MESSAGE_STALL_S
            why = f'the message was not whole within {MESSAGE_STALL_S:.1f} s (the message limit)'
            limit = self.runtime.cell_timeout_s
            if limit is not None and self.started + limit + grace < at:
                at = self.started + limit + grace
                why = (f'the cell ran past cell_timeout_s {limit:.1f} s (+{grace:.1f} s grace) '
                       'inside one message')
            if self.stop_at is not None and self.stop_at + grace < at:
                at = self.stop_at + grace
                why = f'{self.stop_message} (+{grace:.1f} s grace) inside one message'
            return at, why

        return deadline

    def _check_timeout(self, now: float) -> None:
        limit = self.runtime.cell_timeout_s
        if limit is not None and self.stop_reason is None and now - self.started > limit:
            self.runtime.request_stop_locked(
                self, 'cell_timeout', f'cell ran {now - self.started:.1f} s vs cell_timeout_s '
                f'{limit:.1f} s; split long work into shorter cells')

    def next_timeout(self, now: float) -> float:
        """Return how long the host may block before it must check again."""
        timeout = 1.0
        limit = self.runtime.cell_timeout_s
        if limit is not None and self.stop_reason is None:
            timeout = min(timeout, self.started + limit - now)
        if self.escalate_at is not None:
            timeout = min(timeout, self.escalate_at - now)
        return max(0.0, timeout)

    def escalation(self, now: float) -> str | None:
        """Return 'interrupt' or 'kill' when a stopped cell has to be pushed, else None."""
        self._check_timeout(now)
        if self.stop_reason is None:
            return None
        if self.escalate_at is None:
            self.escalate_at = now
        if now < self.escalate_at:
            return None
        self.escalate_at = now + self.runtime.interrupt_grace_s
        if not self.interrupted:
            self.interrupted = True
            return 'interrupt'
        return 'kill'

    def reply(self, message: list, buffers: list = ()) -> None:
        """Send ``message`` (and the raw buffers it announces) to the worker."""
        try:
            protocol.send(self.worker.sock, message, buffers)
        except OSError:
            self.worker_gone = True

    def finish(self, message: list) -> None:
        """Take the worker's 'done' message: output, error or stop line, notes."""
        _, _index, pending, error_name, error_text, where, is_stop, notes = message
        self.output.write(terminal_safe(pending))
        if not self.output.ends_with_newline():
            self.output.write('\n')
        if error_text and not (is_stop and self.stop_reason):
            self.output.write(terminal_safe(error_text))
            self.error = terminal_safe(error_name or '')[:100] or 'Exception'
        if self.stop_reason:
            at = f' at {where}' if where and is_stop else ''
            self.output.write(f'[cell stopped{at}: {terminal_safe(self.stop_message)}]\n')
        self.output.write(terminal_safe(notes))

    def worker_died(self, how: str, killed: bool, protocol_broken: bool = False) -> None:
        """Report a dead worker: the stop reason, what was lost, what is ready."""
        self.namespace_lost = True
        if not self.output.ends_with_newline():
            self.output.write('\n')
        if protocol_broken:
            self.stop_reason = self.stop_reason or 'worker_died'
            head = f'[the cell worker process was killed because {how}'
        elif killed and self.stop_reason is not None:
            head = (f'[cell stopped: {self.stop_message}. It did not end within '
                    f'{2 * self.runtime.interrupt_grace_s:.1f} s, so its worker process was '
                    'killed')
        else:
            self.stop_reason = self.stop_reason or 'worker_died'
            hint = ''
            if 'SIGKILL' in how:
                hint = ', e.g. for using too much memory'
            elif 'SIGSEGV' in how:
                hint = ', e.g. by a crash in native code'
            head = f'[the cell worker process died ({how}{hint})'
        self.output.write(f'{head}; all variables, functions and imports from earlier cells '
                          'are lost. A fresh namespace with robo, np and math is ready; '
                          'define again what you still need]\n')

    def result(self) -> CellResult:
        """Build the frozen result."""
        self.duration_s = time.monotonic() - self.started
        images = tuple(
            ImageObservation(camera=camera, note=note, pixels=pixels, index=i + 1,
                             offset=self.output.render_offset(position))
            for i, (camera, note, pixels, position) in enumerate(self.images))
        return CellResult(index=self.index, output=self.output.render(), images=images,
                          error=self.error, stopped_reason=self.stop_reason,
                          duration_s=self.duration_s, namespace_lost=self.namespace_lost,
                          calls=tuple(self.calls))


def serve_call(cell: CellState, message: list) -> None:
    """
    Serve one ``robo`` call from the worker and send the reply.

    :param cell: the running cell.
    :param message: ``['call', call_id, name, args_tree, kwargs_tree, pending_text,
        buffers]`` (``protocol.recv_worker`` has read the raw buffers).
    """
    _, call_id, name, args_tree, kwargs_tree, pending, buffers = message
    cell.output.write(terminal_safe(pending))
    runtime = cell.runtime
    limits = runtime.limits
    try:
        try:
            args = wire.from_tree(args_tree, buffers)
            kwargs = wire.from_tree(kwargs_tree, buffers)
        except wire.WireError as exc:
            raise TypeError(f'robo.{terminal_safe(name)[:40]} arguments must be plain data: '
                            f'{exc}') from None
        if not (isinstance(args, tuple) and isinstance(kwargs, dict)
                and all(isinstance(k, str) for k in kwargs)):
            raise TypeError(f'malformed call of robo.{terminal_safe(name)[:40]}: '
                            f'{short_repr((args, kwargs), 80)}')
        goal_name, goal_args, goal_kwargs = name, args, kwargs
        if name == 'show':
            if not runtime.has_image:
                raise AttributeError("robo.show needs the primitive 'image', which this "
                                     'runtime was not given')
            camera, note = _show_args(*args, **kwargs)
            if len(cell.images) >= limits.images_per_cell:
                raise RuntimeError(
                    f'robo.show: image {len(cell.images) + 1} of this cell vs '
                    f'images_per_cell {limits.images_per_cell}; show at most '
                    f'{limits.images_per_cell} images per cell (each one costs the model '
                    'tokens), e.g. only the views that changed')
            if len(note) > MAX_TEXT_CHARS:
                raise PrimitiveError(f'robo.show: note of {len(note)} characters vs at most '
                                     f'{MAX_TEXT_CHARS}; write a short caption')
            goal_name, goal_args, goal_kwargs = 'image', (camera,), {}
        check = runtime.argument_checks.get(goal_name)
        if check is not None:
            check.check(goal_args, goal_kwargs)
    except Exception as exc:
        cell.reply(['reply', call_id, 'raise', type(exc).__name__, message_text(exc)])
        return
    if cell.stop_reason is None and name in runtime.acting and runtime.success_check:
        try:
            complete = bool(runtime.success_check())
        except Exception as exc:
            _LOG.exception('success check failed')
            cell.reply(['reply', call_id, 'raise', 'RuntimeError',
                        f'the success check failed on the host: {type(exc).__name__}: {exc}'])
            return
        if complete:
            last = next((c for c in reversed(cell.calls) if c.name in runtime.acting), None)
            state = ('left by ' + call_text(last.name, last.args, last.kwargs) + ' (the last '
                     'motion that ran)') if last is not None else 'before this cell acted'
            runtime.request_stop_locked(
                cell, 'task_complete', f'not an error: the task is done (success): the '
                f'final state, {state}, meets every condition of the task, so this cell '
                f'ended before {call_text(name, args, kwargs)}, which did not run; do not '
                'act any further')
    if cell.stop_reason is not None:
        _reply_stop(cell, call_id)
        return
    started = time.monotonic()
    try:
        goal = runtime.transport.send_goal(goal_name, goal_args, goal_kwargs)
    except (KeyError, TypeError) as exc:
        text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        cell.reply(['reply', call_id, 'raise', type(exc).__name__, str(text)])
        return
    with runtime._lock:
        cell.goal = goal
        if cell.stop_reason is not None:
            # The stop came while the goal was being sent; cancel it as if it had been active.
            goal.cancel(cell.stop_reason)
            cell.stop_message += f'; the running robo.{goal.name} was cancelled'
    _wait_for_goal(cell, goal)
    with runtime._lock:
        cell.goal = None
    duration = time.monotonic() - started
    value, error = None, None
    if goal.done():
        try:
            value = goal.result()
        except BaseException as exc:  # the primitive's failure goes to the cell
            error = exc
    shown = (failure_text(error) if error is not None
             else short_repr(value) if goal.done() else 'abandoned: did not finish after cancel')
    limit = limits.recorded_arg_bytes
    cell.calls.append(PrimitiveCall(
        name, tuple(recorded(a, limit) for a in args),
        {k: recorded(v, limit) for k, v in kwargs.items()}, shown, started - cell.started,
        duration))
    if cell.worker_gone:
        return
    if cell.stop_reason is not None:
        _reply_stop(cell, call_id)
    elif error is not None:
        cell.reply(['reply', call_id, 'raise', type(error).__name__, message_text(error)])
    elif name == 'show':
        _record_image(cell, call_id, camera, note, value)
    else:
        out: list = []
        try:
            tree = wire.to_tree(value, RESULT_BYTES, f'the result of robo.{name}', out)
        except wire.WireError as exc:
            cell.reply(['reply', call_id, 'raise', 'TypeError',
                        f'the result of robo.{name} cannot be sent to the cell: {exc}'])
            return
        cell.reply(['reply', call_id, 'ok', tree, [b.nbytes for b in out]], out)


def _wait_for_goal(cell: CellState, goal) -> None:
    """Wait for ``goal``, draining output, enforcing the timeout and the cancel grace."""
    worker = cell.worker
    while not goal.wait(GOAL_POLL_S):
        now = time.monotonic()
        cell._check_timeout(now)
        if cell.stop_reason is not None:
            if cell.escalate_at is None:
                cell.escalate_at = now + cell.runtime.interrupt_grace_s
            elif now >= cell.escalate_at:
                _LOG.warning('robo.%s ignored cancellation for %.1f s; abandoning it',
                             goal.name, cell.runtime.interrupt_grace_s)
                cell.escalate_at = None
                return
        try:
            while worker.wait_readable(0):
                message = worker.recv(cell.message_deadline())
                if message[0] != 'out':
                    raise protocol.ProtocolError(
                        f"a '{message[0]}' message while robo.{goal.name} ran; only output "
                        'may come then')
                cell.output.write(terminal_safe(message[1]))
        except Exception as exc:  # EOF, reset or garbage: the worker is gone or broken
            cell.worker_gone = True
            if isinstance(exc, protocol.MessageStalled):
                cell.violation = f'it stalled inside a message: {exc}'
            elif not isinstance(exc, (EOFError, ConnectionError)):
                cell.violation = f'it sent a message that breaks the protocol ({exc})'
            # Nobody waits for this goal any more; do not leave the robot moving.
            goal.cancel('worker_died')
            goal.wait(cell.runtime.interrupt_grace_s)
            return


def _reply_stop(cell: CellState, call_id: int) -> None:
    cell.reply(['reply', call_id, 'stop', cell.stop_reason, cell.stop_message])
    # The cell was told to stop at its robo call; SIGINT follows only if it carries on.
    cell.escalate_at = time.monotonic() + cell.runtime.interrupt_grace_s


def _record_image(cell: CellState, call_id: int, camera: str, note: str, pixels: Any) -> None:
    if not (isinstance(pixels, np.ndarray) and pixels.ndim == 3 and pixels.shape[2] == 3
            and pixels.dtype == np.uint8):
        got = (f'{pixels.dtype} array of shape {pixels.shape}' if isinstance(pixels, np.ndarray)
               else type(pixels).__name__)
        cell.reply(['reply', call_id, 'raise', 'TypeError',
                    f'robo.show: image({camera!r}) returned {got} vs an HxWx3 uint8 array; '
                    'the image primitive is broken'])
        return
    number = len(cell.images) + 1
    # Escaped once here: the output, the transcript, the bag and the report all get this.
    note = terminal_safe(note)
    caption = f' — {note}' if note else ''
    if not cell.output.ends_with_newline():
        cell.output.write('\n')
    position = cell.output.write(f'[image {number}: {camera}{caption}]\n')
    # A private, read-only copy: a driver may reuse its frame buffer for the next capture.
    pixels = pixels.copy()
    pixels.flags.writeable = False
    cell.images.append((camera, note, pixels, position))
    cell.reply(['reply', call_id, 'ok', None, []])

"""
The messages between the host and the cell worker: length-prefixed msgpack on one socket.

A frame is a 4-byte big-endian length, then that many bytes of one msgpack array
``[kind, field, ...]``; values inside (arguments, results) are ``wire`` trees. The reader
checks the length against its limit before it allocates anything, so a forged length
costs the host nothing. Nothing is unpickled, imported or looked up by name on either side.

Host to worker: ``['init', specs, limits]``, ``['run', run_id, index, code]``,
``['reply', call_id, 'ok', tree, buffer_sizes]``,
``['reply', call_id, 'raise', type_name, message]``,
``['reply', call_id, 'stop', kind, message]``.

Worker to host: ``['ready', pid]``, ``['out', text]``,
``['call', call_id, name, args_tree, kwargs_tree, pending_text, buffer_sizes]``,
``['done', run_id, pending_text, error_name, error_text, stop_where, is_stop, notes]``.

A message with ``buffer_sizes`` is followed by that many raw buffers, each a 4-byte length
and its bytes (large numpy arrays, sent and received without copies); their total counts
against the same limit as the message.

``run_id`` is a fresh random number per cell, so a 'done' forged by a cell for a later
cell cannot match; every reply carries the ``call_id`` of the call it answers.
"""

from __future__ import annotations

from collections.abc import Callable
import socket
import struct
import time
from typing import Any

from . import wire

HEADER = struct.Struct('!I')
# Most raw buffers after one message.
MAX_BUFFERS = 64
# Longest text chunk the worker sends in one 'out' message (characters).
OUT_CHUNK_CHARS = 65536
# Room a message needs besides its arguments: a text chunk of OUT_CHUNK_CHARS characters
# (up to 4 bytes each) and the fixed fields.
MESSAGE_OVERHEAD_BYTES = 4 * OUT_CHUNK_CHARS + 4096
# Bytes of a call message besides its arguments and output text: kind, call id, name, tags.
CALL_FIELD_BYTES = 512


# How often a reader with a deadline looks at it again while the peer sends nothing.
DEADLINE_POLL_S = 0.1
Deadline = Callable[[], tuple[float, str]]
"""Returns when the message being read must be complete (``time.monotonic``) and why."""


class ProtocolError(Exception):
    """The peer sent bytes that are not a valid message of the protocol."""


class MessageStalled(ProtocolError):
    """A message did not arrive whole before its deadline (the peer sent too slowly)."""


# Field types of each message the worker may send, after its kind ('tree': any wire tree).
_WORKER_MESSAGES: dict[str, tuple] = {
    'ready': (int,),
    'out': (str,),
    'call': (int, str, 'tree', 'tree', str, list),
    'done': (int, str, (str, type(None)), str, str, bool, str),
}


def send(sock: socket.socket, message: list, buffers: list[memoryview] = ()) -> None:
    """Send one message as a single frame, then each raw buffer (its sizes are in it)."""
    data = wire.pack(message)
    if len(data) < 65536:
        sock.sendall(HEADER.pack(len(data)) + data)
    else:
        # No copy of a large payload just to put four bytes in front of it.
        sock.sendall(HEADER.pack(len(data)))
        sock.sendall(data)
    for buffer in buffers:
        sock.sendall(buffer)


def recv_buffers(sock: socket.socket, sizes: Any, limit: int,
                 deadline: Deadline | None = None) -> list[bytearray]:
    """
    Receive the raw buffers a message announced, checking their sizes first.

    :param deadline: when they must have arrived (the message's deadline); None: no limit.
    :raises ProtocolError: for sizes that are not a short list of integers within ``limit``.
    :raises MessageStalled: when they are not all there by ``deadline``.
    """
    if (type(sizes) is not list or len(sizes) > MAX_BUFFERS
            or not all(type(n) is int and n >= 0 for n in sizes)):
        raise ProtocolError(f'buffer sizes must be a list of at most {MAX_BUFFERS} '
                            f'non-negative integers, not {short(sizes)}')
    if sum(sizes) > limit:
        raise ProtocolError(f'buffers of {sum(sizes)} bytes vs the limit of {limit} bytes')
    return [_recv_exactly(sock, n, deadline) if n else bytearray() for n in sizes]


def _recv_exactly(sock: socket.socket, size: int,
                  deadline: Deadline | None = None) -> bytearray:
    data = bytearray(size)
    view = memoryview(data)
    got = 0
    while got < size:
        if deadline is not None:
            # One deadline for the whole message, however slowly its bytes come.
            at, why = deadline()
            left = at - time.monotonic()
            if left <= 0:
                raise MessageStalled(f'{why} ({got} of {size} bytes of a message part had '
                                     'arrived)')
            sock.settimeout(min(left, DEADLINE_POLL_S))
            try:
                n = sock.recv_into(view[got:])
            except TimeoutError:
                continue
        else:
            n = sock.recv_into(view[got:])
        if n == 0:
            raise EOFError('the connection closed inside a message' if got or size == 4
                           else 'the connection closed')
        got += n
    return data


def recv(sock: socket.socket, limit: int, deadline: Deadline | None = None) -> Any:
    """
    Receive one message of at most ``limit`` bytes and return its msgpack value.

    :param deadline: when the message must be complete, counted from its first byte
        (None: the socket's own timeout per read). The socket's timeout is restored after.
    :raises EOFError: if the peer closed the connection.
    :raises ProtocolError: for a length over ``limit`` or bytes that are not msgpack.
    :raises MessageStalled: when the message is not whole by ``deadline``.
    """
    timeout = sock.gettimeout()
    try:
        return _recv(sock, limit, deadline)
    finally:
        if deadline is not None:
            sock.settimeout(timeout)


def _recv(sock: socket.socket, limit: int, deadline: Deadline | None) -> Any:
    return _recv_sized(sock, limit, deadline)[0]


def _recv_sized(sock: socket.socket, limit: int, deadline: Deadline | None) -> tuple[Any, int]:
    try:
        head = _recv_exactly(sock, HEADER.size, deadline)
    except EOFError:
        raise EOFError('the connection closed') from None
    (size,) = HEADER.unpack(head)
    if size > limit:
        raise ProtocolError(f'a message of {size} bytes vs the limit of {limit} bytes')
    try:
        return wire.unpack(_recv_exactly(sock, size, deadline)), size
    except wire.WireError as exc:
        raise ProtocolError(str(exc)) from None


def recv_worker(sock: socket.socket, limit: int, deadline: Deadline | None = None,
                arg_bytes: int | None = None) -> list:
    """
    Receive one message from the worker, checked against the message shapes above.

    :param deadline: when the message and its raw buffers must be complete.
    :param arg_bytes: the most bytes the arguments of one call may take (its frame without
        the output text it carries, plus its raw buffers; ``WorkerLimits.arg_bytes``).
    :raises ProtocolError: for anything the worker does not send.
    :raises MessageStalled: when it is not whole by ``deadline``.
    :raises EOFError: if the worker closed the connection.
    """
    timeout = sock.gettimeout()
    try:
        message, size = _recv_sized(sock, limit, deadline)
        fields = (_WORKER_MESSAGES.get(message[0]) if type(message) is list and message
                  and type(message[0]) is str else None)
        if (fields is None or len(message) != len(fields) + 1
                or not all(t == 'tree' or (type(v) is not bool or t is bool) and isinstance(v, t)
                           for v, t in zip(message[1:], fields, strict=True))):
            raise ProtocolError(f'unexpected message from the worker: {short(message)}')
        if message[0] == 'call':
            if arg_bytes is not None:
                limit = arg_bytes + CALL_FIELD_BYTES
                text = len(message[5].encode('utf-8', 'surrogatepass'))
                sizes = message[6] if type(message[6]) is list else []
                taken = size - text + sum(n for n in sizes if type(n) is int)
                if taken > limit:
                    raise ProtocolError(f'a call of {taken} bytes of arguments vs the limit of '
                                        f'{limit} bytes (WorkerLimits.arg_bytes + '
                                        f'{CALL_FIELD_BYTES} for the call itself)')
                limit -= size - text
            message[6] = recv_buffers(sock, message[6], limit, deadline)
        return message
    finally:
        if deadline is not None:
            sock.settimeout(timeout)


def short(value: Any) -> str:
    """Return ``repr(value)`` cut to 80 characters."""
    try:
        text = repr(value)
    except RecursionError:
        return '<too deeply nested to show>'
    return text if len(text) <= 80 else text[:77] + '...'

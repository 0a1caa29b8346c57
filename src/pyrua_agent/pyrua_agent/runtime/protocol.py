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

import socket
import struct
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


class ProtocolError(Exception):
    """The peer sent bytes that are not a valid message of the protocol."""


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


def recv_buffers(sock: socket.socket, sizes: Any, limit: int) -> list[bytearray]:
    """
    Receive the raw buffers a message announced, checking their sizes first.

    :raises ProtocolError: for sizes that are not a short list of integers within ``limit``.
    """
    if (type(sizes) is not list or len(sizes) > MAX_BUFFERS
            or not all(type(n) is int and n >= 0 for n in sizes)):
        raise ProtocolError(f'buffer sizes must be a list of at most {MAX_BUFFERS} '
                            f'non-negative integers, not {short(sizes)}')
    if sum(sizes) > limit:
        raise ProtocolError(f'buffers of {sum(sizes)} bytes vs the limit of {limit} bytes')
    return [_recv_exactly(sock, n) if n else bytearray() for n in sizes]


def _recv_exactly(sock: socket.socket, size: int) -> bytearray:
    data = bytearray(size)
    view = memoryview(data)
    got = 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            raise EOFError('the connection closed inside a message' if got or size == 4
                           else 'the connection closed')
        got += n
    return data


def recv(sock: socket.socket, limit: int) -> Any:
    """
    Receive one message of at most ``limit`` bytes and return its msgpack value.

    :raises EOFError: if the peer closed the connection.
    :raises ProtocolError: for a length over ``limit`` or bytes that are not msgpack.
    """
    try:
        head = _recv_exactly(sock, HEADER.size)
    except EOFError:
        raise EOFError('the connection closed') from None
    (size,) = HEADER.unpack(head)
    if size > limit:
        raise ProtocolError(f'a message of {size} bytes vs the limit of {limit} bytes')
    try:
        return wire.unpack(_recv_exactly(sock, size))
    except wire.WireError as exc:
        raise ProtocolError(str(exc)) from None


def recv_worker(sock: socket.socket, limit: int) -> list:
    """
    Receive one message from the worker, checked against the message shapes above.

    :raises ProtocolError: for anything the worker does not send.
    :raises EOFError: if the worker closed the connection.
    """
    message = recv(sock, limit)
    fields = (_WORKER_MESSAGES.get(message[0]) if type(message) is list and message
              and type(message[0]) is str else None)
    if (fields is None or len(message) != len(fields) + 1
            or not all(t == 'tree' or (type(v) is not bool or t is bool) and isinstance(v, t)
                       for v, t in zip(message[1:], fields, strict=True))):
        raise ProtocolError(f'unexpected message from the worker: {short(message)}')
    if message[0] == 'call':
        message[6] = recv_buffers(sock, message[6], limit)
    return message


def short(value: Any) -> str:
    """Return ``repr(value)`` cut to 80 characters."""
    try:
        text = repr(value)
    except RecursionError:
        return '<too deeply nested to show>'
    return text if len(text) <= 80 else text[:77] + '...'

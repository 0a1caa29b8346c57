"""
The message protocol between the host and the cell worker (one socket, pickle protocol 5).

Host to worker: ``('init', specs, sys_path, memory_limit_mb)``, ``('run', index, code)``,
``('reply', call_id, 'ok', value_blob, buffer_sizes)`` followed by each out-of-band
buffer as unframed bytes (numpy pixels travel without pickling copies),
``('reply', call_id, 'raise', type_name, message)``, ``('reply', call_id, 'stop', kind, message)``.

Worker to host: ``('ready', pid)``, ``('out', text)``,
``('call', call_id, name, args_blob, pending_text)``,
``('done', index, pending_text, error_name, error_text, stop_where, is_stop, notes)``.

The host reads what the worker sends with ``PlainDataUnpickler``: only plain data, numpy
arrays and ``pyrua_*`` dataclasses and enums may cross, so a cell cannot make the host run
code by writing crafted bytes to the socket. The worker trusts the host.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import io
from multiprocessing.connection import Connection
import os
import pickle
from typing import Any

PROTOCOL = 5
# Longest message the host accepts from the worker, so a corrupt length cannot stall it.
MAX_MESSAGE_BYTES = 512 * 1024 * 1024

_ALLOWED_GLOBALS = frozenset({
    ('builtins', 'bytearray'), ('builtins', 'complex'), ('builtins', 'frozenset'),
    ('builtins', 'range'), ('builtins', 'set'), ('builtins', 'slice'),
    ('collections', 'OrderedDict'), ('collections', 'deque'), ('copyreg', '_reconstructor'),
    ('numpy', 'dtype'), ('numpy', 'ndarray'),
    ('numpy.core.multiarray', '_reconstruct'), ('numpy.core.multiarray', 'scalar'),
    ('numpy.core.numeric', '_frombuffer'),
    ('numpy._core.multiarray', '_reconstruct'), ('numpy._core.multiarray', 'scalar'),
    ('numpy._core.numeric', '_frombuffer'),
})


class PlainDataUnpickler(pickle.Unpickler):
    """An unpickler that rebuilds only plain data, numpy arrays and pyrua dataclasses."""

    def find_class(self, module: str, name: str) -> Any:
        """Return the allowed global ``module.name`` or refuse it."""
        if (module, name) in _ALLOWED_GLOBALS:
            return super().find_class(module, name)
        if module.split('.')[0].startswith('pyrua_') and '.' not in name:
            obj = getattr(importlib.import_module(module), name, None)
            if isinstance(obj, type) and (dataclasses.is_dataclass(obj)
                                          or issubclass(obj, enum.Enum)):
                return obj
        raise pickle.UnpicklingError(
            f'{module}.{name} cannot be passed to a primitive; pass plain data (numbers, '
            'strings, lists, tuples, dicts, numpy arrays) or pyrua result objects')


def dumps(obj: Any) -> bytes:
    """Pickle ``obj`` with protocol 5."""
    return pickle.dumps(obj, protocol=PROTOCOL)


def dumps_out_of_band(obj: Any) -> tuple[bytes, list[memoryview]]:
    """
    Pickle ``obj`` with its large contiguous buffers (numpy arrays) kept out of band.

    :returns: the pickle and the raw byte views to send after it, in order.
    """
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(obj, protocol=PROTOCOL, buffer_callback=buffers.append)
    return data, [b.raw() for b in buffers]


def loads_plain(data: bytes) -> Any:
    """Unpickle ``data`` allowing plain data only (see ``PlainDataUnpickler``)."""
    return PlainDataUnpickler(io.BytesIO(data)).load()


def send(conn: Connection, message: tuple) -> None:
    """Send one message."""
    conn.send_bytes(pickle.dumps(message, protocol=PROTOCOL))


def send_raw(conn: Connection, buffer: memoryview) -> None:
    """Write the bytes of ``buffer`` with no framing (the message before it gives the size)."""
    fd = conn.fileno()
    view = memoryview(buffer).cast('B')
    while view:
        view = view[os.write(fd, view):]


def recv_raw(conn: Connection, size: int) -> bytearray:
    """Read exactly ``size`` unframed bytes into a new (writable) buffer."""
    fd = conn.fileno()
    data = bytearray(size)
    view = memoryview(data)
    got = 0
    while got < size:
        n = os.readv(fd, [view[got:]])
        if n == 0:
            raise EOFError('connection closed inside a raw frame')
        got += n
    return data


# Field types of each message the worker may send, after its kind.
_WORKER_MESSAGES = {
    'ready': (int,),
    'out': (str,),
    'call': (int, str, bytes, str),
    'done': (int, str, (str, type(None)), str, str, bool, str),
}


def recv_plain(conn: Connection) -> tuple:
    """
    Receive one message from the worker (plain data only, shape checked).

    :raises ValueError: if the message is not one the worker sends.
    """
    message = loads_plain(conn.recv_bytes(MAX_MESSAGE_BYTES))
    shaped = isinstance(message, tuple) and message and isinstance(message[0], str)
    fields = _WORKER_MESSAGES.get(message[0]) if shaped else None
    if (fields is None or len(message) != len(fields) + 1
            or not all(isinstance(v, t) for v, t in zip(message[1:], fields, strict=True))):
        raise ValueError(f'unexpected message from the worker: {short(message)}')
    return message


def short(value: Any) -> str:
    """Return ``repr(value)`` cut to 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + '...'


def recv_trusted(conn: Connection) -> tuple:
    """Receive one message from the host."""
    return pickle.loads(conn.recv_bytes())

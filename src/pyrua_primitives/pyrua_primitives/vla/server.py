"""
A policy server speaking the openpi websocket protocol, for any Python policy callable.

It plays the part of openpi's ``WebsocketPolicyServer`` (metadata on connect, one reply per
observation, a text frame with the traceback when the policy raises) with ``websockets`` and
msgpack only, so it runs beside numpy 2. Use it to serve a scripted or replayed policy on
loopback (tests, demos); it is not an inference stack and it does no batching.
"""

from __future__ import annotations

from collections.abc import Callable
import logging
import threading
import traceback
from typing import Any

from .wire import pack, require, unpack

_LOG = logging.getLogger(__name__)
_INTERNAL_ERROR = 1011


class PolicyServer:
    """
    Serve ``policy(observation) -> reply map`` on ``ws://host:port`` in a background thread.

    Use it as a context manager; ``port=0`` picks a free port (read ``port`` after entry).

    :param policy: called with each decoded observation; returns the reply map.
    :param host: address to listen on (default loopback only).
    :param port: TCP port, 0 for any free one.
    :param metadata: the map sent to each client when it connects.
    """

    def __init__(self, policy: Callable[[dict], dict], *, host: str = '127.0.0.1',
                 port: int = 0, metadata: dict | None = None) -> None:
        self.policy = policy
        self.host = host
        self.port = int(port)
        self.metadata = dict(metadata or {})
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        state = 'serving' if self._server is not None else 'stopped'
        return f'<PolicyServer ws://{self.host}:{self.port} {state}>'

    def __enter__(self) -> PolicyServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> None:
        """
        Start listening and serving in a daemon thread.

        :raises OSError: when the port cannot be bound.
        :raises MissingDependency: when the ``vla`` extra is not installed.
        """
        if self._server is not None:
            return
        serve = require('websockets.sync.server').serve
        require('msgpack')
        self._server = serve(self._handle, self.host, self.port, compression=None,
                             max_size=None)
        self.port = int(self._server.socket.getsockname()[1])
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name=f'policy-server-{self.port}', daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and close every connection (idempotent)."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None

    def _handle(self, connection: Any) -> None:
        closed = require('websockets').exceptions.ConnectionClosed
        try:
            connection.send(pack(self.metadata))
            for message in connection:
                try:
                    reply = pack(self.policy(unpack(message)))
                except Exception:
                    _LOG.exception('policy failed on an observation')
                    connection.send(traceback.format_exc())
                    connection.close(_INTERNAL_ERROR, 'policy error')
                    return
                connection.send(reply)
        except closed:
            return

"""
Policy clients: the ``PolicyClient`` protocol and a client for openpi's websocket servers.

The openpi protocol: the client connects to ``ws://host:port``; the server first sends its
metadata (a map); then each observation the client sends gets one reply, the action map
(``{'actions': H x D array, ...}``), or a text frame with the server's traceback. Messages
are msgpack-numpy (``wire.py``). Unlike ``openpi_client.WebsocketClientPolicy``, which
waits for a server forever, every wait here has a timeout and a dead endpoint is a
``PolicyError`` saying so. Nothing is ever downloaded: the client only talks to the
configured endpoint.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any, Protocol, runtime_checkable

from .config import VlaConfig
from .wire import pack, require, unpack
from ..errors import PrimitiveError


class PolicyError(PrimitiveError):
    """The policy endpoint failed: not reachable, timed out, an error reply, a bad message."""


@runtime_checkable
class PolicyClient(Protocol):
    """A policy: observation map in, action map (with the action chunk) out."""

    @property
    def metadata(self) -> dict:
        """Return what the server said about itself when the client connected."""
        ...

    def infer(self, observation: dict) -> dict:
        """
        Return the policy's reply to one observation.

        :raises PolicyError: when no valid reply comes back.
        """
        ...


class WebsocketPolicyClient:
    """
    A client of one openpi-compatible policy server (msgpack-numpy over a websocket).

    Use it as a context manager, or call ``close()``; the connection is opened on entry.

    :param host: server host name or address.
    :param port: server TCP port.
    :param connect_timeout_s: longest wait for the connection and the server's metadata.
    :param timeout_s: longest wait for one inference reply.
    """

    def __init__(self, host: str, port: int, *, connect_timeout_s: float = 5.0,
                 timeout_s: float = 10.0) -> None:
        address = f'[{host}]' if ':' in host else host  # an IPv6 literal needs brackets
        self.uri = f'ws://{address}:{int(port)}'
        self.connect_timeout_s = float(connect_timeout_s)
        self.timeout_s = float(timeout_s)
        self._connection: Any = None
        self._stack = ExitStack()
        self._metadata: dict = {}

    @classmethod
    def from_config(cls, config: VlaConfig) -> WebsocketPolicyClient:
        """
        Build the client of ``config.endpoint``.

        :raises ValueError: when no endpoint is configured.
        """
        host, port = config.host_port()
        return cls(host, port, connect_timeout_s=config.connect_timeout_s,
                   timeout_s=config.timeout_s)

    def __repr__(self) -> str:
        state = 'connected' if self._connection is not None else 'closed'
        return f'<WebsocketPolicyClient {self.uri} {state}>'

    def __enter__(self) -> WebsocketPolicyClient:
        self.connect()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def metadata(self) -> dict:
        """Return the metadata the server sent on connection ({} before connecting)."""
        return self._metadata

    def connect(self) -> None:
        """
        Open the connection and read the server's metadata.

        :raises PolicyError: when the server is not reachable or does not answer in time.
        :raises MissingDependency: when the ``vla`` extra is not installed.
        """
        if self._connection is not None:
            return
        client = require('websockets.sync.client')
        failures = (OSError, TimeoutError, require('websockets').exceptions.WebSocketException)
        require('msgpack')
        try:
            # proxy=None: the endpoint is reached directly, never through an environment proxy.
            # Entered as a context manager (websockets >= 17.1 warns otherwise); close() exits.
            connection = self._stack.enter_context(client.connect(
                self.uri, open_timeout=self.connect_timeout_s, close_timeout=1.0,
                compression=None, max_size=None, proxy=None))
        except failures as exc:
            raise PolicyError(f'policy server {self.uri} not reachable ({_describe(exc)}) '
                              f'within {self.connect_timeout_s:.1f} s; start it or fix '
                              'vla.endpoint') from None
        self._connection = connection
        try:
            metadata = self._receive(self.connect_timeout_s, 'metadata')
        except PolicyError:
            self.close()
            raise
        self._metadata = metadata

    def infer(self, observation: dict) -> dict:
        """
        Send one observation and return the policy's reply map.

        :param observation: a map of str keys to arrays, numbers and strings.
        :returns: the reply map (e.g. ``{'actions': H x D array}``).
        :raises PolicyError: when the connection fails, the reply does not come within
            ``timeout_s``, or the server replies with an error or a malformed message.
        :raises TypeError: for an observation value the protocol cannot carry.
        """
        self.connect()
        data = pack(observation)
        try:
            self._connection.send(data)
        except require('websockets').exceptions.WebSocketException as exc:
            self.close()
            raise PolicyError(f'policy server {self.uri} dropped the connection while '
                              f'sending ({_describe(exc)}); check the server log') from None
        return self._receive(self.timeout_s, 'reply')

    def _receive(self, timeout_s: float, what: str) -> dict:
        websockets = require('websockets')
        try:
            message = self._connection.recv(timeout=timeout_s)
        except TimeoutError:
            self.close()
            raise PolicyError(f'no {what} from policy server {self.uri} within {timeout_s:.1f} s '
                              'vs vla.timeout_s; check that the server is serving') from None
        except websockets.exceptions.WebSocketException as exc:
            self.close()
            raise PolicyError(f'policy server {self.uri} closed the connection before its '
                              f'{what} ({_describe(exc)}); check the server log') from None
        if isinstance(message, str):
            self.close()
            last = message.strip().splitlines()[-1:] or ['(empty)']
            raise PolicyError(f'policy server {self.uri} failed: {last[0][:200]}; check the '
                              'server log')
        try:
            value = unpack(message)
        except ValueError as exc:
            self.close()
            raise PolicyError(f'{what} from {self.uri} is not msgpack-numpy: {exc}') from None
        if not isinstance(value, dict):
            self.close()
            raise PolicyError(f'{what} from {self.uri} is a {type(value).__name__} vs a map; '
                              'serve an openpi-compatible policy')
        return value

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._connection = None
        self._stack.close()


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f'{type(exc).__name__}: {text}' if text else type(exc).__name__

"""
The OpenAI-compatible HTTP face of a backend, on 127.0.0.1 by default.

Routes: ``GET /v1/models``, ``GET /health``, ``POST /v1/chat/completions``, ``POST /tokenize``
(``{"content": text}`` -> ``{"tokens": [...]}``, as llama.cpp's server) and ``POST /render``
(``{"messages", "tools"}`` -> ``{"prompt", "tokens"}``: the exact text the model reads).

One request is computed at a time (a CPU model has no room for two); the others wait their
turn. A request whose client has hung up is not started, and its generation stops at the next
token, so a client that timed out and retried never makes the server compute twice.
Streaming is not offered (``"stream": true`` is refused).
"""

from __future__ import annotations

from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import logging
import select
import socket
import threading
from typing import Any, Protocol

_LOG = logging.getLogger(__name__)
MAX_BODY_BYTES = 64 << 20


class ChatBackend(Protocol):
    """What the HTTP layer needs of a model (``LlamaBackend`` is one)."""

    model: Any
    runtime: str

    def complete(self, body: dict[str, Any], cancelled: Callable[[], bool]) -> dict[str, Any]:
        """Answer one chat-completions body."""

    def tokenize(self, text: str) -> list[int]:
        """Return the model's tokens of a text."""

    def render(self, body: dict[str, Any]) -> tuple[str, str | None]:
        """Return the prompt text of a request."""


def error_body(message: str, kind: str = 'invalid_request_error',
               code: str | None = None) -> dict[str, Any]:
    """Return an OpenAI-style error object."""
    return {'error': {'message': message, 'type': kind, 'param': None, 'code': code}}


def _hung_up(connection: socket.socket) -> bool:
    try:
        readable, _, _ = select.select([connection], [], [], 0)
        return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b''
    except (OSError, ValueError):
        return True


class ModelHTTPServer(ThreadingHTTPServer):
    """
    Serve one backend.

    :param backend: the loaded model.
    :param host: the address to bind (loopback by default).
    :param port: 0 picks a free port (see ``port``).
    :param aliases: model names accepted besides the backend's own (e.g. ``'local'``).
    """

    daemon_threads = True

    def __init__(self, backend: ChatBackend, host: str = '127.0.0.1', port: int = 0, *,
                 aliases: tuple[str, ...] = ('local',)) -> None:
        self.backend = backend
        self.names = {backend.model.name, f'local:{backend.model.name}', *aliases}
        self.compute_lock = threading.Lock()
        super().__init__((host, port), _Handler)

    @property
    def port(self) -> int:
        """The bound port."""
        return int(self.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://host:port/v1``."""
        return f'http://{self.server_address[0]}:{self.port}/v1'


class _Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server: ModelHTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        _LOG.debug('%s %s', self.address_string(), format % args)

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode('utf-8')
        try:
            self.send_response(status)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802
        backend = self.server.backend
        if self.path.rstrip('/') == '/v1/models':
            self._send(200, {'object': 'list', 'data': [
                {'id': backend.model.name, 'object': 'model', 'owned_by': 'pyrua_local',
                 'runtime': backend.runtime, 'quantisation': backend.model.quantisation,
                 'takes_images': backend.model.takes_images}]})
        elif self.path.rstrip('/') == '/health':
            self._send(200, {'status': 'ok', 'model': backend.model.name,
                             'requests': getattr(backend, 'requests', None),
                             'cancelled': getattr(backend, 'cancelled', None)})
        else:
            self._send(404, error_body(f'no route GET {self.path}', 'not_found'))

    def _body(self) -> dict[str, Any] | None:
        length = int(self.headers.get('Content-Length') or 0)
        if length > MAX_BODY_BYTES:
            self._send(413, error_body(f'body of {length} bytes vs at most {MAX_BODY_BYTES}'))
            self.close_connection = True
            return None
        try:
            body = json.loads(self.rfile.read(length) or b'{}')
        except ValueError as exc:
            self._send(400, error_body(f'body is not JSON: {exc}'))
            return None
        if not isinstance(body, dict):
            self._send(400, error_body(f'body is a JSON {type(body).__name__} vs an object'))
            return None
        return body

    def do_POST(self) -> None:  # noqa: N802
        from .backend import RequestError

        route = self.path.rstrip('/')
        body = self._body()
        if body is None:
            return
        backend = self.server.backend
        try:
            if route == '/tokenize':
                self._send(200, {'tokens': backend.tokenize(str(body.get('content', '')))})
            elif route == '/render':
                prompt, _ = backend.render(body)
                self._send(200, {'prompt': prompt, 'tokens': len(backend.tokenize(prompt))})
            elif route == '/v1/chat/completions':
                self._chat(body)
            else:
                self._send(404, error_body(f'no route POST {self.path}; this server answers '
                                           '/v1/chat/completions', 'not_found'))
        except RequestError as exc:
            self._send(400, error_body(str(exc), code=exc.code))
        except Exception as exc:  # the model failed: an infrastructure error
            _LOG.exception('local model failed')
            self._send(500, error_body(f'{type(exc).__name__}: {exc}', 'server_error'))

    def _chat(self, body: dict[str, Any]) -> None:
        model = body.get('model')
        if model not in self.server.names:
            self._send(404, error_body(
                f'model {model!r} vs the one this server serves: '
                f'{sorted(self.server.names)}', 'invalid_request_error', 'model_not_found'))
            return
        if body.get('stream'):
            self._send(400, error_body('stream=true vs not supported by pyrua_local; send '
                                       'stream=false'))
            return
        with self.server.compute_lock:
            if _hung_up(self.connection):
                self.close_connection = True
                if hasattr(self.server.backend, 'cancelled'):
                    self.server.backend.cancelled += 1
                return
            response = self.server.backend.complete(
                body, cancelled=lambda: _hung_up(self.connection))
        self._send(200, response)

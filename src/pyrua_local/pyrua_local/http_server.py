"""
The OpenAI-compatible HTTP face of a backend, on 127.0.0.1 by default.

Routes: ``GET /v1/models``, ``GET /health``, ``GET /progress`` (the request being computed:
prompt tokens read of all, tokens generated, tokens/s; ``{"busy": false}`` between requests;
answered at once, never behind the compute lock), ``POST /v1/chat/completions``, ``POST /tokenize``
(``{"content": text}`` -> ``{"tokens": [...]}``, as llama.cpp's server) and ``POST /render``
(``{"messages", "tools"}`` -> ``{"prompt", "tokens"}``: the exact text the model reads).

One request is computed at a time (a CPU model has no room for two); the others wait their
turn. A request whose client has hung up is not started, and its generation stops at the next
token, so a client that timed out and retried never makes the server compute twice.
Streaming is not offered (``"stream": true`` is refused).
"""

from __future__ import annotations

from collections.abc import Callable
from http.server import ThreadingHTTPServer
import logging
import select
import socket
import threading
from typing import Any, Protocol

from .json_http import error_body, JsonHandler

_LOG = logging.getLogger(__name__)


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


class _Handler(JsonHandler):
    server: ModelHTTPServer

    def do_GET(self) -> None:  # noqa: N802
        backend = self.server.backend
        if self.path.rstrip('/') == '/v1/models':
            self.send_json(200, {'object': 'list', 'data': [
                {'id': backend.model.name, 'object': 'model', 'owned_by': 'pyrua_local',
                 'runtime': backend.runtime, 'quantisation': backend.model.quantisation,
                 'takes_images': backend.model.takes_images}]})
        elif self.path.rstrip('/') == '/progress':
            progress = getattr(backend, 'progress', None)
            self.send_json(200, progress.snapshot() if progress is not None
                           else {'busy': False, 'requests': None})
        elif self.path.rstrip('/') == '/health':
            self.send_json(200, {'status': 'ok', 'model': backend.model.name,
                                 'requests': getattr(backend, 'requests', None),
                                 'cancelled': getattr(backend, 'cancelled', None)})
        else:
            self.send_json(404, error_body(f'no route GET {self.path}', 'not_found'))

    def do_POST(self) -> None:  # noqa: N802
        from .backend import RequestError

        route = self.path.rstrip('/')
        body = self.read_json_object()
        if body is None:
            return
        backend = self.server.backend
        try:
            if route == '/tokenize':
                self.send_json(200, {'tokens': backend.tokenize(str(body.get('content', '')))})
            elif route == '/render':
                prompt, _ = backend.render(body)
                self.send_json(200, {'prompt': prompt, 'tokens': len(backend.tokenize(prompt))})
            elif route == '/v1/chat/completions':
                self._chat(body)
            else:
                self.send_json(404, error_body(f'no route POST {self.path}; this server answers '
                                               '/v1/chat/completions', 'not_found'))
        except RequestError as exc:
            self.send_json(400, error_body(str(exc), code=exc.code))
        except Exception as exc:  # the model failed: an infrastructure error
            _LOG.exception('local model failed')
            self.send_json(500, error_body(f'{type(exc).__name__}: {exc}', 'server_error'))

    def _chat(self, body: dict[str, Any]) -> None:
        model = body.get('model')
        if model not in self.server.names:
            self.send_json(404, error_body(
                f'model {model!r} vs the one this server serves: '
                f'{sorted(self.server.names)}', 'invalid_request_error', 'model_not_found'))
            return
        if body.get('stream'):
            self.send_json(400, error_body('stream=true vs not supported by pyrua_local; send '
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
        self.send_json(200, response)

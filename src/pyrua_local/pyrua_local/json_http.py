"""
The JSON side of an OpenAI-compatible HTTP handler, shared by every server of the workspace.

``JsonHandler`` answers with a JSON body (a client that hung up is not an error: the
connection is closed quietly) and reads a request body as one JSON object, refusing an
oversized, malformed or non-object body with the OpenAI error shape (``error_body``).
The local model server, the reference server of the tests and the cost model, and the
training rollout server subclass it; each adds only its routes.
"""

from __future__ import annotations

from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
import json
import logging
from typing import Any

_LOG = logging.getLogger(__name__)
MAX_BODY_BYTES = 64 << 20
"""The largest request body a handler reads (a long conversation with images fits)."""


def error_body(message: str, kind: str = 'invalid_request_error',
               code: str | None = None) -> dict[str, Any]:
    """Return an OpenAI-style error object."""
    return {'error': {'message': message, 'type': kind, 'param': None, 'code': code}}


class JsonHandler(BaseHTTPRequestHandler):
    """A keep-alive HTTP/1.1 handler that speaks JSON bodies; logs at debug level only."""

    protocol_version = 'HTTP/1.1'

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        _LOG.debug('%s %s', self.address_string(), format % args)

    def send_json(self, status: int, payload: Any,
                  headers: Mapping[str, str] | None = None) -> None:
        """Send ``payload`` as the JSON body of a ``status`` response (UTF-8, not escaped)."""
        data = json.dumps(payload, ensure_ascii=False).encode('utf-8')
        try:
            self.send_response(status)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (its timeout ran out during a stall): nothing to answer.
            self.close_connection = True

    def read_json_object(self) -> dict[str, Any] | None:
        """
        Return the request body as a JSON object, or answer the error and return None.

        Refused: a body over ``MAX_BODY_BYTES`` (413, the connection is closed), a body that
        is not JSON (400), JSON that is not an object (400).
        """
        length = int(self.headers.get('Content-Length') or 0)
        if length > MAX_BODY_BYTES:
            self.send_json(413, error_body(f'body of {length} bytes vs at most '
                                           f'{MAX_BODY_BYTES}'))
            self.close_connection = True
            return None
        try:
            body = json.loads(self.rfile.read(length) or b'{}')
        except ValueError as exc:
            self.send_json(400, error_body(f'body is not JSON: {exc}'))
            return None
        if not isinstance(body, dict):
            self.send_json(400, error_body(f'body is a JSON {type(body).__name__} vs an '
                                           'object'))
            return None
        return body

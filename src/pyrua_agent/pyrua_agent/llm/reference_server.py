"""
The reference server: a loopback OpenAI-compatible chat server that replays scripted turns.

The cost model (``pyrua_lab.evaluation.cost_model``) serves each interface's reference conversation
with it, and the tests of every package use it as the model's protocol peer
(``pyrua_agent.testing`` re-exports it for them).

``LoopbackLLMServer`` is a real HTTP server on 127.0.0.1 that serves
``POST /v1/chat/completions`` (and ``GET /v1/models``) from a script of turns: replies with
tool calls or plain text, HTTP faults (429 with ``Retry-After``, 5xx) and stalls longer than
a client's timeout. It records every request it receives and reports ``usage`` counted with
the o200k tokenizer and OpenAI's image formula (``pyrua_agent.llm.tokens``), including a
cached-prefix count the way OpenAI's prompt caching reports one.

It checks what the OpenAI chat API checks that a planner can get wrong (tool messages must
answer the preceding assistant tool calls; images only in user messages unless allowed)
and answers a violation with HTTP 400, as the real API does. It is a protocol peer, not a model
server: it never looks at the prompt to decide what to say.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
import itertools
import json
import threading
import time
from typing import Any, Union

from pyrua_local.json_http import error_body, JsonHandler

from .tokens import count_images, prompt_blocks, REPLY_PRIMING_TOKENS, text_tokens

CACHE_BLOCK_TOKENS = 128
CACHE_MIN_TOKENS = 1024


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """One tool call the server sends; ``arguments`` as a mapping, or a raw (maybe bad) string."""

    name: str
    arguments: str | Mapping[str, Any] = '{}'

    def arguments_json(self) -> str:
        """Return the arguments string as it goes over the wire."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(dict(self.arguments))


@dataclass(frozen=True, slots=True)
class ScriptedReply:
    """
    One assistant answer: text, tool calls, or both.

    :param content: the assistant text, or ``None``.
    :param calls: the tool calls, in order.
    :param reasoning_tokens: reported as reasoning and added to ``completion_tokens``.
    :param cached_tokens: force ``cached_tokens`` for this answer instead of computing it.
    :param finish_reason: force it (e.g. ``'length'``: a reply cut at the output limit);
        default ``'tool_calls'`` with calls, else ``'stop'``.
    """

    content: str | None = None
    calls: tuple[ScriptedCall, ...] = ()
    reasoning_tokens: int = 0
    cached_tokens: int | None = None
    finish_reason: str | None = None


@dataclass(frozen=True, slots=True)
class ScriptedFault:
    """An HTTP error answer: 429 (optionally with ``Retry-After``), 5xx, or any 4xx."""

    status: int = 500
    retry_after_s: float | None = None
    message: str = 'scripted fault'
    code: str | None = None


@dataclass(frozen=True, slots=True)
class ScriptedStall:
    """Hold the request for ``delay_s`` (longer than the client timeout), then answer 504."""

    delay_s: float


Turn = Union[ScriptedReply, ScriptedFault, ScriptedStall]
TurnSource = Union[Turn, Callable[[dict], Turn]]


def text_turn(text: str) -> ScriptedReply:
    """Return a plain text answer with no tool call."""
    return ScriptedReply(content=text)


def end_turns(text: str = 'Done.') -> list[ScriptedReply]:
    """
    Return the turns that end an LLM planner's episode.

    A text-only reply, and the same again after the planner's one correction message.
    """
    return [text_turn(text), text_turn(text)]


def tool_turn(name: str, arguments: str | Mapping[str, Any] | None = None,
              content: str | None = None) -> ScriptedReply:
    """Return an answer with one tool call (``arguments`` may be a malformed JSON string)."""
    return ScriptedReply(content=content, calls=(ScriptedCall(name, arguments or {}),))


def code_turn(code: str, content: str | None = None) -> ScriptedReply:
    """Return an answer that calls the code agent's ``python`` tool with ``code``."""
    return tool_turn('python', {'code': code}, content)


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """
    One request the server received.

    ``authorization`` is masked (``'Bearer ***'`` or ``''``): the key itself is never kept.
    ``usage`` is what the server reported, ``None`` when it did not answer with a completion.
    """

    path: str
    body: dict[str, Any]
    status: int
    authorization: str
    usage: dict[str, Any] | None = None
    error: str = ''

    def __repr__(self) -> str:
        n = len(self.body.get('messages', ()))
        return f'RecordedRequest({self.path} {self.status}, {n} messages, {self.error[:50]!r})'

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Return the request's messages."""
        return list(self.body.get('messages', ()))

    @property
    def roles(self) -> list[str]:
        """Return the role of each message, in order."""
        return [m.get('role', '') for m in self.messages]

    @property
    def tool_names(self) -> list[str]:
        """Return the names of the offered function tools."""
        return [t['function']['name'] for t in self.body.get('tools', ())]

    @property
    def image_count(self) -> int:
        """Return how many image parts the request carried."""
        return count_images(self.messages)


@dataclass
class _State:
    script: list[TurnSource]
    requests: list[RecordedRequest] = field(default_factory=list)
    previous_blocks: list[tuple[str, int]] = field(default_factory=list)
    ids: Iterator[int] = field(default_factory=itertools.count)


def check_chat_request(body: Mapping[str, Any], images_in_tool_messages: bool) -> str:
    """Return why the OpenAI chat API would refuse ``body`` (HTTP 400), or ``''``."""
    messages = body.get('messages')
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    if not body.get('model'):
        return 'you must provide a model parameter'
    if body.get('stream'):
        return 'stream=true is not supported by the loopback server'
    pending: list[str] = []
    for index, message in enumerate(messages):
        role = message.get('role')
        if pending and role != 'tool':
            return (f"messages[{index}]: an assistant message with 'tool_calls' must be "
                    f"followed by tool messages responding to each 'tool_call_id'; missing "
                    f'{pending}')
        if role == 'tool':
            if message.get('tool_call_id') not in pending:
                return (f"messages[{index}]: messages with role 'tool' must be a response to "
                        "a preceding message with 'tool_calls'")
            pending.remove(message['tool_call_id'])
        if role == 'assistant':
            pending = [c['id'] for c in message.get('tool_calls') or ()]
        content = message.get('content')
        has_image = isinstance(content, list) and any(
            p.get('type') == 'image_url' for p in content)
        if has_image and role != 'user' and not (role == 'tool' and images_in_tool_messages):
            return (f'messages[{index}]: image URLs are only allowed for messages with role '
                    f"'user', but this message with role '{role}' contains an image URL")
    if pending:
        return (f"an assistant message with 'tool_calls' must be followed by tool messages "
                f"responding to each 'tool_call_id'; missing {pending}")
    return ''


def cached_prefix_tokens(blocks: list[tuple[str, int]], previous: list[tuple[str, int]]) -> int:
    """
    Return the cached-token count OpenAI-style prompt caching reports.

    The longest run of leading blocks (tools, then messages) identical to the previous answered
    request, rounded down to 128-token blocks, and 0 below 1024 tokens.
    """
    prefix = 0
    for (key, tokens), (old_key, old_tokens) in zip(blocks, previous, strict=False):
        if key != old_key or tokens != old_tokens:
            break
        prefix += tokens
    if prefix < CACHE_MIN_TOKENS:
        return 0
    return prefix // CACHE_BLOCK_TOKENS * CACHE_BLOCK_TOKENS


class LoopbackLLMServer:
    """
    An OpenAI-compatible chat server on 127.0.0.1 that answers from a script.

    :param script: the turns, answered in order; a callable turn gets the request body.
    :param model_name: the model listed by ``GET /v1/models``.
    :param prompt_caching: report a cached prefix (else ``cached_tokens`` is always 0).
    :param images_in_tool_messages: accept image parts in tool messages (OpenAI does not).
    :param context_tokens: refuse prompts longer than this with ``context_length_exceeded``.
    """

    def __init__(self, script: Iterable[TurnSource] = (), *, model_name: str = 'loopback',
                 prompt_caching: bool = True, images_in_tool_messages: bool = False,
                 context_tokens: int | None = None) -> None:
        self.model_name = model_name
        self.prompt_caching = prompt_caching
        self.images_in_tool_messages = images_in_tool_messages
        self.context_tokens = context_tokens
        text_tokens('load the BPE table now, not inside the first request')
        self._state = _State(script=list(script))
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(('127.0.0.1', 0), _handler_class(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                        name='loopback-llm', daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        """Return the URL to give ``openai.OpenAI(base_url=...)``."""
        return f'http://127.0.0.1:{self._httpd.server_address[1]}/v1'

    def __repr__(self) -> str:
        return (f'LoopbackLLMServer({self.base_url}, {len(self.requests)} requests, '
                f'{self.remaining} turns left)')

    def __enter__(self) -> LoopbackLLMServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving; stalled requests are released at once."""
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5.0)

    def reset(self, script: Iterable[TurnSource] = ()) -> None:
        """Replace the script and forget what was received (for a session-scoped server)."""
        with self._lock:
            self._state = _State(script=list(script))

    def extend(self, turns: Iterable[TurnSource]) -> None:
        """Append turns to the script."""
        with self._lock:
            self._state.script.extend(turns)

    @property
    def remaining(self) -> int:
        """Return how many scripted turns are left."""
        return len(self._state.script)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Return every request received, in order."""
        with self._lock:
            return list(self._state.requests)

    @property
    def usages(self) -> list[dict[str, Any]]:
        """Return the usage of every completion the server answered, in order."""
        return [r.usage for r in self.requests if r.usage is not None]

    def handle_chat(self, body: dict[str, Any], authorization: str) -> tuple[int, dict, dict]:
        """Answer one chat request: ``(status, headers, json_body)``; records the request."""
        masked = 'Bearer ***' if authorization else ''
        path = '/v1/chat/completions'
        with self._lock:
            state = self._state
            problem = check_chat_request(body, self.images_in_tool_messages)
            blocks: list[tuple[str, int]] = []
            if not problem:
                try:
                    blocks = prompt_blocks(body['messages'], body.get('tools'))
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    problem = f'invalid content: {exc}'
            prompt_tokens = sum(tokens for _, tokens in blocks) + REPLY_PRIMING_TOKENS
            if problem:
                state.requests.append(RecordedRequest(path, body, 400, masked, error=problem))
                return 400, {}, error_body(problem, 'invalid_request_error', None)
            if self.context_tokens is not None and prompt_tokens > self.context_tokens:
                problem = (f"This model's maximum context length is {self.context_tokens} "
                           f'tokens. However, your messages resulted in {prompt_tokens} tokens.')
                state.requests.append(RecordedRequest(path, body, 400, masked, error=problem))
                return 400, {}, error_body(problem, 'invalid_request_error',
                                           'context_length_exceeded')
            if not state.script:
                problem = (f'loopback script exhausted after {len(state.requests)} requests; '
                           'add turns to the script')
                state.requests.append(RecordedRequest(path, body, 400, masked, error=problem))
                return 400, {}, error_body(problem, 'invalid_request_error', 'script_exhausted')
            turn = state.script.pop(0)
            if callable(turn):
                turn = turn(body)
            if isinstance(turn, ScriptedFault):
                headers = {}
                if turn.retry_after_s is not None:
                    headers['Retry-After'] = f'{turn.retry_after_s:g}'
                state.requests.append(RecordedRequest(path, body, turn.status, masked,
                                                      error=turn.message))
                kind = 'rate_limit_exceeded' if turn.status == 429 else 'server_error'
                return turn.status, headers, error_body(turn.message, kind, turn.code)
            if isinstance(turn, ScriptedStall):
                state.requests.append(RecordedRequest(path, body, 504, masked, error='stall'))
                delay = turn.delay_s
            else:
                cached = turn.cached_tokens
                if cached is None:
                    cached = (cached_prefix_tokens(blocks, state.previous_blocks)
                              if self.prompt_caching else 0)
                state.previous_blocks = blocks
                reply = _completion(turn, body, prompt_tokens, min(cached, prompt_tokens),
                                    next(state.ids))
                state.requests.append(RecordedRequest(path, body, 200, masked,
                                                      usage=reply['usage']))
                return 200, {}, reply
        self._stop.wait(delay)
        return 504, {}, error_body(f'stalled {delay:g} s', 'server_error', None)


def _completion(turn: ScriptedReply, body: Mapping[str, Any], prompt_tokens: int,
                cached_tokens: int, serial: int) -> dict[str, Any]:
    calls = [{'id': f'call_{serial}_{i}', 'type': 'function',
              'function': {'name': c.name, 'arguments': c.arguments_json()}}
             for i, c in enumerate(turn.calls)]
    completion = text_tokens(turn.content or '') + turn.reasoning_tokens + sum(
        text_tokens(c['function']['name']) + text_tokens(c['function']['arguments'])
        for c in calls)
    message: dict[str, Any] = {'role': 'assistant', 'content': turn.content}
    if calls:
        message['tool_calls'] = calls
    return {
        'id': f'chatcmpl-loopback-{serial}', 'object': 'chat.completion',
        'created': int(time.time()), 'model': body['model'],
        'choices': [{'index': 0, 'message': message, 'logprobs': None,
                     'finish_reason': turn.finish_reason or (
                         'tool_calls' if calls else 'stop')}],
        'usage': {
            'prompt_tokens': prompt_tokens, 'completion_tokens': completion,
            'total_tokens': prompt_tokens + completion,
            'prompt_tokens_details': {'cached_tokens': cached_tokens, 'audio_tokens': 0},
            'completion_tokens_details': {'reasoning_tokens': turn.reasoning_tokens,
                                          'audio_tokens': 0},
        },
    }


def _handler_class(server: LoopbackLLMServer) -> type[JsonHandler]:
    class Handler(JsonHandler):
        def do_GET(self) -> None:  # noqa: N802
            if self.path.rstrip('/') == '/v1/models':
                self.send_json(200, {'object': 'list', 'data': [
                    {'id': server.model_name, 'object': 'model', 'owned_by': 'pyrua'}]})
            else:
                self.send_json(404, error_body(f'no route GET {self.path}', 'not_found'))

        def do_POST(self) -> None:  # noqa: N802
            if self.path.rstrip('/') != '/v1/chat/completions':
                self.rfile.read(int(self.headers.get('Content-Length') or 0))
                self.send_json(404, error_body(f'no route POST {self.path}; the loopback '
                                               'server serves /v1/chat/completions',
                                               'not_found'))
                return
            body = self.read_json_object()
            if body is not None:
                status, headers, payload = server.handle_chat(
                    body, self.headers.get('Authorization', ''))
                self.send_json(status, payload, headers)

    return Handler

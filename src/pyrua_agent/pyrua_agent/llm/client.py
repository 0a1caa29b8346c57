"""
The chat-completions client: one counted model call per ``complete()``, with its own retries.

The ``openai`` client runs with ``max_retries=0``; this module retries 429, 5xx, timeouts and
connection errors with exponential backoff and jitter (honouring ``Retry-After``). Each
failed attempt is an ``InfraEvent`` in the ledger, never a model call; when retries run out
``EndpointUnavailable`` is raised, which the episode loop maps to ``infra_error``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
import email.utils
import logging
import os
import random
import time
from typing import Any

import openai
from pyrua_local.tool_text import parse_text_tool_calls

from .config import EndpointConfig, OPENAI_BASE_URL
from .errors import ContextOverflow, EndpointConfigError, EndpointRejected, EndpointUnavailable
from .messages import assistant_message
from .tokens import count_images, prompt_tokens
from ..accounting import CallRecord, InfraEvent, Ledger, PriceTable

_log = logging.getLogger(__name__)
NO_KEY_PLACEHOLDER = 'no-key'
ToolChoice = str | Mapping[str, Any]
_OVERFLOW_MARKERS = ('context_length_exceeded', 'maximum context length', 'context window',
                     'too many tokens', 'prompt is too long')


@dataclass(frozen=True, slots=True)
class RawToolCall:
    """A tool call exactly as the endpoint sent it; the arguments are still a JSON string."""

    call_id: str
    name: str
    arguments: str

    def __repr__(self) -> str:
        return f'RawToolCall({self.call_id!r}, {self.name!r}, {len(self.arguments)} chars)'


@dataclass(frozen=True, slots=True)
class ChatReply:
    """One answered model call: the assistant's text and tool calls, and its accounting."""

    content: str | None
    tool_calls: tuple[RawToolCall, ...]
    finish_reason: str
    record: CallRecord

    def __repr__(self) -> str:
        calls = ', '.join(c.name for c in self.tool_calls) or 'no tool call'
        text = len(self.content or '')
        return f'ChatReply({calls}, {text} chars, finish={self.finish_reason}, {self.record!r})'

    def message(self) -> dict[str, Any]:
        """Return the assistant message to append to the history."""
        return assistant_message(
            self.content, [(c.call_id, c.name, c.arguments) for c in self.tool_calls])


def resolve_api_key(config: EndpointConfig) -> str:
    """
    Return the API key from ``config.api_key_env``, or the placeholder for keyless endpoints.

    :raises EndpointConfigError: when OpenAI's URL is used and the variable is unset.
    """
    key = os.environ.get(config.api_key_env, '')
    if key:
        return key
    if config.base_url.rstrip('/') == OPENAI_BASE_URL:
        raise EndpointConfigError(
            f'environment variable {config.api_key_env} is unset vs required for '
            f'{OPENAI_BASE_URL}; export it, or set api_key_env to the variable that holds '
            'the key')
    return NO_KEY_PLACEHOLDER


def _retry_after_s(exc: openai.APIStatusError) -> float | None:
    """Return the wait the server asked for (``retry-after-ms``, seconds or an HTTP date)."""
    headers = exc.response.headers
    millis, value = headers.get('retry-after-ms'), headers.get('retry-after')
    try:
        if millis is not None:
            return max(0.0, float(millis) / 1000.0)
        if value is not None:
            return max(0.0, float(value))
    except ValueError:
        pass
    if value is None:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_text(exc: openai.APIError) -> str:
    body = exc.body if isinstance(exc.body, Mapping) else {}
    code = body.get('code') or ''
    return f'{code} {exc.message}'.strip()[:300]


class ChatClient:
    """
    A chat-completions endpoint with retries and per-call accounting.

    :param config: the endpoint settings.
    :param ledger: where calls and infrastructure events are recorded (one per episode).
    :param prices: the price table; the packaged one by default.
    :param sleep: how to wait between retries (a test may pass a recording function).
    :param rng: the jitter source.
    """

    def __init__(self, config: EndpointConfig, *, ledger: Ledger | None = None,
                 prices: PriceTable | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None) -> None:
        self.config = config
        self.ledger = ledger if ledger is not None else Ledger()
        self.prices = prices if prices is not None else PriceTable.load()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._openai = openai.OpenAI(base_url=config.base_url, api_key=resolve_api_key(config),
                                     timeout=config.timeout_s, max_retries=0)

    def __repr__(self) -> str:
        return f'ChatClient({self.config!r})'

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._openai.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def request_body(self, messages: Sequence[Mapping[str, Any]],
                     tools: Sequence[Mapping[str, Any]] | None = None,
                     tool_choice: ToolChoice | None = None,
                     prefill: str | None = None, *,
                     sampling: tuple[float, int] | None = None) -> dict[str, Any]:
        """
        Return the keyword arguments of one chat-completions request (no secrets).

        ``prefill`` (an endpoint with ``continues_final_message`` only) is sent as a last,
        partial assistant message with vLLM's ``continue_final_message``. ``sampling``
        (temperature, seed) replaces the endpoint's temperature for this request.

        :raises EndpointConfigError: for a prefill the endpoint cannot continue.
        """
        if not self.config.takes_images:
            messages = text_only_messages(messages)
        body: dict[str, Any] = {'model': self.config.model, 'messages': list(messages)}
        if prefill is not None:
            if not self.config.continues_final_message:
                raise EndpointConfigError(
                    f'a reply prefill vs endpoint {self.config.base_url} without '
                    "continues_final_message; set it only for servers that take vLLM's "
                    'continue_final_message (pyrua_local, vLLM)')
            body['messages'].append({'role': 'assistant', 'content': prefill})
            body['extra_body'] = {'continue_final_message': True,
                                  'add_generation_prompt': False}
        if tools:
            body['tools'] = list(tools)
        if tool_choice is not None:
            body['tool_choice'] = tool_choice
        if self.config.reasoning_effort is not None:
            body['reasoning_effort'] = self.config.reasoning_effort
        if sampling is not None:
            body['temperature'], body['seed'] = sampling
        elif self.config.temperature is not None:
            body['temperature'] = self.config.temperature
        if self.config.max_output_tokens is not None:
            body['max_completion_tokens'] = self.config.max_output_tokens
        return body

    def complete(self, messages: Sequence[Mapping[str, Any]],
                 tools: Sequence[Mapping[str, Any]] | None = None,
                 tool_choice: ToolChoice | None = None,
                 prefill: str | None = None, *,
                 sampling: tuple[float, int] | None = None) -> ChatReply:
        """
        Make one counted model call, retrying infrastructure failures.

        :param messages: the chat history.
        :param tools: function tool definitions offered to the model.
        :param tool_choice: ``'auto'``, ``'required'``, ``'none'`` or a named function
            (``{'type': 'function', 'function': {'name': 'python'}}``); unset by default.
        :param prefill: the start of the reply (e.g. a code fence's opening), continued by
            the model; the reply's content includes it.
        :param sampling: (temperature, seed) of this call instead of the endpoint's
            temperature (``EndpointConfig.repeat_temperature``).
        :returns: the reply; its record is also added to the ledger.
        :raises EndpointUnavailable: after ``max_retries`` retries failed.
        :raises ContextOverflow: when the endpoint says the prompt is too long.
        :raises EndpointRejected: for any other non-retryable 4xx.
        """
        body = self.request_body(messages, tools, tool_choice, prefill, sampling=sampling)
        timeout_s = self.config.timeout_s
        if self.config.prefill_tokens_per_s is not None:
            timeout_s = self.config.attempt_timeout_s(prompt_tokens(body['messages'], tools))
        events: list[InfraEvent] = []
        attempt = 0
        while True:
            attempt += 1
            started = time.monotonic()
            try:
                response = self._openai.chat.completions.create(**body, timeout=timeout_s)
            except openai.APIStatusError as exc:
                if exc.status_code != 429 and exc.status_code < 500:
                    raise self._rejected(exc, tuple(events)) from exc
                kind = 'rate_limit' if exc.status_code == 429 else 'server_error'
                self._fail(events, attempt, kind, exc.status_code, _error_text(exc),
                           _retry_after_s(exc))
                continue
            except openai.APITimeoutError:
                detail = f'no response within timeout_s={timeout_s:g} s'
                if timeout_s != self.config.timeout_s:
                    detail += (f' (timeout_s={self.config.timeout_s:g} + the prompt at '
                               f'prefill_tokens_per_s={self.config.prefill_tokens_per_s:g})')
                self._fail(events, attempt, 'timeout', None, detail, None)
                continue
            except openai.APIConnectionError as exc:
                self._fail(events, attempt, 'connection', None, str(exc.__cause__ or exc), None)
                continue
            return self._reply(response, body, time.monotonic() - started, len(events),
                               prefill)

    def _fail(self, events: list[InfraEvent], attempt: int, kind: str, status: int | None,
              detail: str, retry_after_s: float | None) -> None:
        cfg = self.config
        last = attempt > cfg.max_retries
        wait = 0.0
        if not last:
            wait = cfg.backoff_initial_s * 2.0 ** (attempt - 1)
            wait *= 1.0 + cfg.backoff_jitter * self._rng.uniform(-1.0, 1.0)
            wait = min(max(wait, retry_after_s or 0.0), cfg.backoff_max_s)
        event = InfraEvent(kind=kind, detail=detail, status=status, wait_s=wait)
        events.append(event)
        self.ledger.add_infra(event)
        _log.warning('LLM endpoint %s attempt %d/%d failed: %r', cfg.base_url, attempt,
                     cfg.max_retries + 1, event)
        if last:
            raise EndpointUnavailable(
                f'endpoint {cfg.base_url} failed {attempt} attempts vs max_retries='
                f'{cfg.max_retries}; last failure: {kind}: {detail}. Check the server, or raise '
                'max_retries/timeout_s', tuple(events))
        self._sleep(wait)

    def _rejected(self, exc: openai.APIStatusError,
                  events: tuple[InfraEvent, ...]) -> EndpointRejected:
        text = _error_text(exc)
        where = f'endpoint {self.config.base_url} (model {self.config.model!r})'
        if exc.status_code in (400, 413) and any(m in text.lower() for m in _OVERFLOW_MARKERS):
            return ContextOverflow(f'{where} refused the prompt as too long: {text}; shorten '
                                   'the history or use a model with a larger context',
                                   events, exc.status_code)
        return EndpointRejected(f'{where} answered {exc.status_code}: {text}; check the '
                                'model name, the API key and the request', events,
                                exc.status_code)

    def _reply(self, response: Any, body: Mapping[str, Any], latency_s: float,
               retries: int, prefill: str | None = None) -> ChatReply:
        if not response.choices:
            raise EndpointRejected(f'endpoint {self.config.base_url} returned 0 choices vs 1; '
                                   'check that it serves chat completions')
        choice = response.choices[0]
        message = choice.message
        calls = tuple(RawToolCall(c.id, c.function.name, c.function.arguments or '')
                      for c in (message.tool_calls or ()))
        content = message.content
        if prefill is not None:
            content = prefill + (content or '')
        if not calls and content and body.get('tools'):
            # A server without a tool parser: the call is in the text (Hermes, JSON, a
            # ```python block). Read it the same way pyrua_local's server does.
            names = [t['function']['name'] for t in body['tools']]
            found = parse_text_tool_calls(content, names)
            if found.calls:
                _log.info('read %d tool call(s) from the reply text (%s)', len(found.calls),
                          ', '.join(c.form for c in found.calls))
                tag = (response.id or 'reply')[-12:]
                calls = tuple(RawToolCall(f'call_text_{tag}_{i}', c.name, c.arguments)
                              for i, c in enumerate(found.calls))
                content = found.text or None
        usage = response.usage
        if usage is None:
            raise EndpointRejected(f'endpoint {self.config.base_url} sent no usage vs required '
                                   'for accounting; enable usage reporting on the server')
        cached = getattr(usage.prompt_tokens_details, 'cached_tokens', None) or 0
        reasoning = getattr(usage.completion_tokens_details, 'reasoning_tokens', None) or 0
        price = self.prices.get(self.config.model)
        cost = None if price is None else price.cost_usd(
            usage.prompt_tokens, cached, usage.completion_tokens)
        record = CallRecord(
            model=self.config.model, input_tokens=usage.prompt_tokens,
            cached_input_tokens=cached, output_tokens=usage.completion_tokens,
            reasoning_tokens=reasoning, images_sent=count_images(body['messages']),
            latency_s=latency_s, retries=retries, cost_usd=cost)
        note = '' if price is not None else self.prices.missing_note(self.config.model)
        self.ledger.add_call(record, note)
        return ChatReply(content=content, tool_calls=calls,
                         finish_reason=choice.finish_reason or '', record=record)


def text_only_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """
    Return the messages with every image part dropped, for a model that reads text only.

    Each image is already preceded by its text label (``[image: head camera, 640x480]``,
    ``ImageAttachment.parts``), so the model still learns which image it would have seen.
    """
    out = []
    for message in messages:
        content = message.get('content')
        if isinstance(content, list) and any(p.get('type') == 'image_url' for p in content):
            texts = [p.get('text', '') for p in content if p.get('type') == 'text']
            message = {**message, 'content': '\n'.join(t for t in texts if t)}
        out.append(dict(message))
    return out

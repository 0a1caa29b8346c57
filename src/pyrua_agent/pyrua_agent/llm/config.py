"""
Endpoint settings: where the model is, how to call it and how hard to retry.

The API key itself is never a field: only the name of the environment variable that holds
it, so no config repr, log line or recording can contain it.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

OPENAI_BASE_URL = 'https://api.openai.com/v1'
CALL_FORMS = ('auto', 'tool', 'fence')
REASONING_EFFORTS = ('none', 'minimal', 'low', 'medium', 'high', 'xhigh')


@dataclass(frozen=True, kw_only=True)
class EndpointConfig:
    """
    Settings of one OpenAI-compatible chat-completions endpoint.

    :param base_url: e.g. ``http://127.0.0.1:8000/v1`` for vLLM/SGLang, ``.../v1`` for
        Ollama or LiteLLM; OpenAI's by default.
    :param model: the model name sent with each request (and looked up in the price table).
    :param api_key_env: environment variable holding the key. When it is unset, OpenAI's
        URL is refused and any other endpoint gets the placeholder key ``'no-key'``.
    :param reasoning_effort: sent as ``reasoning_effort`` only when set.
    :param temperature: sent only when set.
    :param max_output_tokens: sent as ``max_completion_tokens`` only when set.
    :param timeout_s: per-attempt HTTP timeout, seconds (for a short prompt; see
        ``prefill_tokens_per_s``).
    :param prefill_tokens_per_s: the slowest prompt-evaluation speed expected of the server;
        when set, each attempt may also take ``prompt tokens / prefill_tokens_per_s`` seconds
        more, so a long prompt on a local CPU model (minutes of prefill) is not abandoned and
        re-sent. ``None`` (hosted endpoints): ``timeout_s`` alone.
    :param max_retries: retries after the first attempt on 429, 5xx, timeouts and
        connection errors; then ``EndpointUnavailable``.
    :param backoff_initial_s: wait before the first retry, doubled each retry.
    :param backoff_max_s: cap on any wait, ``Retry-After`` included.
    :param backoff_jitter: each wait is scaled by a random factor in ``[1 - j, 1 + j]``.
    :param images_in_tool_messages: the endpoint accepts image parts in tool messages
        (OpenAI chat does not: images then go in a following user message).
    :param takes_images: the model reads pixels. A text-only model gets each image as its
        text label (``[image: head camera, 640x480]``) instead of the pixels.
    :param call_form: how the code interface's model writes a cell: ``'tool'``, a JSON
        ``python(code)`` tool call; ``'fence'``, a ```` ```python ```` block in its reply
        (no tools offered; the prompt says so). ``'auto'``: ``'tool'`` for hosted endpoints,
        the local models' measured choice for ``--model local`` (``llm.local``).
    :param force_first_action: the first call of an episode must act: the code interface
        names its ``python`` tool in ``tool_choice`` (or, in the fence form, prefills the
        opening of the block where the endpoint continues a reply), the tool interfaces send
        ``tool_choice='required'``. False: ``'auto'`` from the start.
    :param force_every_call: every call that offers tools sends the first call's
        ``tool_choice`` (``python`` named, or ``required``), not ``'auto'``: the model cannot
        answer with text, so the episode ends on success (the guard) or a budget. For a small
        local model, whose text replies were broken calls, not answers (pyrua_local's server
        also constrains a forced call to an offered tool and a JSON object). No effect on
        the fence form, which offers no tools.
    :param continues_final_message: the endpoint takes vLLM's ``continue_final_message``
        (the reply continues a partial assistant message); pyrua_local's server does.
    :param repeat_temperature: the temperature of the one call that follows a repeated
        cell (its code and output word for word the previous cell's), sent with the call's
        number as its ``seed`` so a rerun samples the same; every other call keeps
        ``temperature``. None: no change. Under greedy decoding a small model repeats a
        refused call to the end of its budget; ``--model local`` sets it
        (``llm.local.LOCAL_REPEAT_TEMPERATURE``).
    :param bar_repeated_looks: after a look (``measure``, ``locate``, ``pose``, ...: a tool
        interface's call that observes) sent again with the same result, the one next call
        may not call that tool: its ``tool_choice`` is OpenAI's ``allowed_tools`` (mode
        ``required``) naming every other offered tool, so the tools list, and a server's
        cached prompt state, stay the same. The endpoint must take that form (OpenAI's and
        pyrua_local's do). Greedy, the 1.5B measured the one object of its task 16 times,
        told each time that it repeated; ``--model local`` sets it
        (``llm.local.LOCAL_BAR_REPEATED_LOOKS``).
    """

    base_url: str = OPENAI_BASE_URL
    model: str = 'gpt-5-mini'
    api_key_env: str = 'OPENAI_API_KEY'
    reasoning_effort: str | None = None
    temperature: float | None = None
    max_output_tokens: int | None = None
    timeout_s: float = 120.0
    max_retries: int = 6
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 60.0
    backoff_jitter: float = 0.25
    images_in_tool_messages: bool = False
    takes_images: bool = True
    prefill_tokens_per_s: float | None = None
    call_form: str = 'auto'
    force_first_action: bool = True
    force_every_call: bool = False
    continues_final_message: bool = False
    repeat_temperature: float | None = None
    bar_repeated_looks: bool = False

    def __post_init__(self) -> None:
        if self.call_form not in CALL_FORMS:
            raise ValueError(f'call_form {self.call_form!r} vs {CALL_FORMS}; use one of them')
        if not self.base_url.startswith(('http://', 'https://')):
            raise ValueError(f'base_url {self.base_url!r} vs http(s)://...; give the URL '
                             "that ends in '/v1', e.g. 'http://127.0.0.1:8000/v1'")
        if not self.model:
            raise ValueError("model '' vs a model name; set model, e.g. 'gpt-5-mini'")
        if not self.api_key_env.isidentifier():
            raise ValueError(f'api_key_env {self.api_key_env!r} vs an environment variable '
                             "name; e.g. 'OPENAI_API_KEY'")
        if self.reasoning_effort is not None and self.reasoning_effort not in REASONING_EFFORTS:
            raise ValueError(f'reasoning_effort {self.reasoning_effort!r} vs '
                             f'{REASONING_EFFORTS}; use one of them or leave it unset')
        for name in ('temperature', 'repeat_temperature'):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 2.0:
                raise ValueError(f'{name} {value} vs [0, 2]; pick a value inside')
        if self.max_output_tokens is not None and self.max_output_tokens < 1:
            raise ValueError(f'max_output_tokens {self.max_output_tokens} vs >= 1; raise it '
                             'or leave it unset')
        for name in ('timeout_s', 'backoff_max_s'):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f'{name} {value} vs > 0 s; give a positive number of seconds')
        if not (math.isfinite(self.backoff_initial_s) and self.backoff_initial_s >= 0):
            raise ValueError(f'backoff_initial_s {self.backoff_initial_s} vs >= 0 s; fix it')
        if self.prefill_tokens_per_s is not None and not (
                math.isfinite(self.prefill_tokens_per_s) and self.prefill_tokens_per_s > 0):
            raise ValueError(f'prefill_tokens_per_s {self.prefill_tokens_per_s} vs > 0; give '
                             "the server's slowest prompt speed, or leave it unset")
        if self.max_retries < 0:
            raise ValueError(f'max_retries {self.max_retries} vs >= 0; use 0 for no retries')
        if not 0.0 <= self.backoff_jitter < 1.0:
            raise ValueError(f'backoff_jitter {self.backoff_jitter} vs [0, 1); e.g. 0.25')

    def __repr__(self) -> str:
        effort = f', effort={self.reasoning_effort}' if self.reasoning_effort else ''
        text = '' if self.takes_images else ', text only'
        return (f'EndpointConfig({self.model!r} at {self.base_url}, key=${self.api_key_env} '
                f'(masked){effort}{text}, timeout={self.timeout_s:g} s, '
                f'retries={self.max_retries})')

    @property
    def code_form(self) -> str:
        """The code interface's reply form in effect: ``'tool'`` or ``'fence'``."""
        return 'tool' if self.call_form == 'auto' else self.call_form

    def attempt_timeout_s(self, prompt_tokens: int) -> float:
        """Return the HTTP timeout of one attempt for a prompt of ``prompt_tokens``."""
        if self.prefill_tokens_per_s is None:
            return self.timeout_s
        return self.timeout_s + prompt_tokens / self.prefill_tokens_per_s

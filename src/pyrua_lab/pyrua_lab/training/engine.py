"""
The rollout engine: an OpenAI-compatible chat server on 127.0.0.1 in front of the policy.

Rollouts are ordinary code-agent episodes: the unchanged planner talks to this server through
the real ``openai`` client, exactly as it talks to any endpoint in evaluation. Each episode
gets its own base URL, ``http://127.0.0.1:PORT/episodes/<episode_id>/v1``, so the server
knows which episode a request belongs to without any extra field. For every completion it
keeps the exact prompt tokens, the generated tokens and their sampling log-probs under that
episode id (a request with vLLM's ``continue_final_message`` continues its last, partial
assistant message: the prefill is prompt, only the continuation is generated and
returned); the trainer reads them back with ``take(episode_id)`` after the episode, so the
loss sees exactly the tokens the model generated, never a re-tokenisation.

Generation runs in process (``LocalPolicy.sample``), one request at a time behind a lock; the
weights are the trainer's own tensors, so every optimizer step is visible to the next
rollout at once (no weight sync is needed for this engine; ``sync_weights`` drops the
policy's kept system-message caches, computed with the old weights).
"""

from __future__ import annotations

from collections.abc import Mapping
from http.server import ThreadingHTTPServer
import logging
import threading
import time
from typing import Any

from pyrua_local.json_http import error_body, JsonHandler

from .chat import parse_hermes
from .policy import Completion, LocalPolicy

_LOG = logging.getLogger(__name__)


class _Episode:
    def __init__(self, generator: Any, seed: int) -> None:
        self.generator = generator
        self.seed = seed
        self.completions: list[Completion] = []


class RolloutEngine:
    """
    Serve ``policy`` as ``POST /episodes/<id>/v1/chat/completions`` and record its tokens.

    :param policy: the policy under training.
    :param max_new_tokens: the cap on generated tokens per call (a request may ask fewer).
    :param model_name: the model name the server answers with.
    """

    def __init__(self, policy: LocalPolicy, *, max_new_tokens: int = 4096,
                 model_name: str = 'policy') -> None:
        if max_new_tokens < 1:
            raise ValueError(f'max_new_tokens {max_new_tokens} vs >= 1')
        self.policy = policy
        self.max_new_tokens = max_new_tokens
        self.model_name = model_name
        self._episodes: dict[str, _Episode] = {}
        self._lock = threading.Lock()
        self._generate_lock = threading.Lock()
        self.generated_tokens = 0
        self.generate_s = 0.0
        self._httpd = ThreadingHTTPServer(('127.0.0.1', 0), _handler_class(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                        name='rollout-engine', daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        """Return the port the server listens on."""
        return self._httpd.server_address[1]

    def __repr__(self) -> str:
        return (f'RolloutEngine(127.0.0.1:{self.port}, {self.policy!r}, '
                f'{len(self._episodes)} open episodes)')

    def __enter__(self) -> RolloutEngine:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5.0)

    def open_episode(self, episode_id: str, seed: int) -> str:
        """
        Register an episode and return its base URL.

        :param episode_id: a unique id (letters, digits, ``-`` and ``_``).
        :param seed: seeds the episode's sampling generator.
        :raises ValueError: for a bad or already open id.
        """
        if not episode_id or not all(c.isalnum() or c in '-_' for c in episode_id):
            raise ValueError(f'episode id {episode_id!r} vs letters, digits, - and _ only')
        with self._lock:
            if episode_id in self._episodes:
                raise ValueError(f'episode {episode_id!r} is already open; take() it first')
            self._episodes[episode_id] = _Episode(self.episode_generator(seed), seed)
        return f'http://127.0.0.1:{self.port}/episodes/{episode_id}/v1'

    def episode_generator(self, seed: int) -> Any:
        """Return the sampling generator of a new episode (the policy's, seeded)."""
        return self.policy.generator(seed)

    def take(self, episode_id: str) -> tuple[Completion, ...]:
        """Close an episode and return its completions in call order."""
        with self._lock:
            episode = self._episodes.pop(episode_id, None)
        if episode is None:
            raise KeyError(f'episode {episode_id!r} is not open; open_episode() first')
        return tuple(episode.completions)

    def complete(self, episode_id: str, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """Answer one chat-completions request of an episode: ``(status, json_body)``."""
        with self._lock:
            episode = self._episodes.get(episode_id)
        if episode is None:
            return 404, error_body(f'episode {episode_id!r} is not open on this rollout engine',
                                   'not_found', None)
        problem = self._check(body)
        if problem:
            return 400, error_body(problem, 'invalid_request_error', None)
        prompt = self.policy.render(body['messages'], body.get('tools'),
                                    continue_final=bool(body.get('continue_final_message')))
        room = self.policy.max_positions - len(prompt)
        if room < 1:
            return 400, error_body(
                f"This model's maximum context length is {self.policy.max_positions} tokens. "
                f'However, your messages resulted in {len(prompt)} tokens.',
                'invalid_request_error', 'context_length_exceeded')
        asked = body.get('max_completion_tokens') or body.get('max_tokens') or self.max_new_tokens
        cap = min(int(asked), self.max_new_tokens, room)
        prefix = self.policy.system_prefix(body['messages'], body.get('tools'), prompt)
        completion = self.generate(episode, prompt, cap, prefix=prefix)
        episode.completions.append(completion)
        return 200, self._response(episode_id, len(episode.completions), completion)

    def generate(self, episode: _Episode, prompt: list[int], cap: int, *,
                 prefix: int = 0) -> Completion:
        """Sample one completion of ``prompt`` in process, one request at a time."""
        with self._generate_lock:
            started = time.monotonic()
            completion = self.policy.sample(prompt, cap, episode.generator, prefix=prefix)
            self.generate_s += time.monotonic() - started
            self.generated_tokens += len(completion.completion_ids)
        return completion

    def sync_weights(self, folder: Any, version: int) -> None:
        """Drop the kept prompt caches: this engine samples from the trainer's own tensors."""
        self.policy.forget_prefixes()

    def _check(self, body: Mapping[str, Any]) -> str:
        if not isinstance(body.get('messages'), list) or not body['messages']:
            return "'messages' must be a non-empty array"
        if body.get('stream'):
            return 'stream=true vs not supported by the rollout engine; send stream=false'
        if body.get('n', 1) != 1:
            return f"n={body['n']} vs 1; the rollout engine samples one choice per request"
        if body.get('continue_final_message'):
            last = body['messages'][-1]
            if not isinstance(last, Mapping) or last.get('role') != 'assistant':
                return ('continue_final_message=true vs a last message that is not the '
                        "assistant's partial reply; end messages with it, or drop the flag")
            if body.get('add_generation_prompt', True):
                return ('continue_final_message=true with add_generation_prompt=true: the '
                        'reply cannot both continue and start a turn; send '
                        'add_generation_prompt=false')
        temperature = body.get('temperature')
        if temperature is not None and temperature != self.policy.temperature:
            return (f'temperature {temperature} vs the policy temperature '
                    f'{self.policy.temperature}; '
                    'the trainer sets the sampling temperature (leave it unset)')
        return ''

    def _response(self, episode_id: str, serial: int,
                  completion: Completion) -> dict[str, Any]:
        reply = parse_hermes(self.policy.decode(completion.completion_ids))
        calls = [{'id': f'call_{serial}_{i}', 'type': 'function',
                  'function': {'name': call.name, 'arguments': call.arguments}}
                 for i, call in enumerate(reply.calls)]
        message: dict[str, Any] = {'role': 'assistant', 'content': reply.content}
        if calls:
            message['tool_calls'] = calls
        finish = 'tool_calls' if calls and completion.finish_reason == 'stop' else (
            completion.finish_reason)
        prompt_tokens, generated = len(completion.prompt_ids), len(completion.completion_ids)
        return {
            'id': f'chatcmpl-{episode_id}-{serial}', 'object': 'chat.completion',
            'created': int(time.time()), 'model': self.model_name,
            'choices': [{'index': 0, 'message': message, 'finish_reason': finish}],
            'usage': {'prompt_tokens': prompt_tokens, 'completion_tokens': generated,
                      'total_tokens': prompt_tokens + generated},
        }


def _handler_class(engine: RolloutEngine) -> type[JsonHandler]:
    class Handler(JsonHandler):
        def _episode_path(self) -> tuple[str, str] | None:
            parts = self.path.strip('/').split('/')
            if len(parts) >= 3 and parts[0] == 'episodes' and parts[2] == 'v1':
                return parts[1], '/'.join(parts[3:])
            return None

        def do_GET(self) -> None:  # noqa: N802
            route = self._episode_path()
            if route is not None and route[1] == 'models':
                self.send_json(200, {'object': 'list', 'data': [
                    {'id': engine.model_name, 'object': 'model', 'owned_by': 'pyrua'}]})
                return
            self.send_json(404, error_body(f'no route GET {self.path}', 'not_found'))

        def do_POST(self) -> None:  # noqa: N802
            route = self._episode_path()
            if route is None or route[1] != 'chat/completions':
                self.rfile.read(int(self.headers.get('Content-Length') or 0))
                self.send_json(404, error_body(
                    f'no route POST {self.path}; the rollout engine serves '
                    '/episodes/<id>/v1/chat/completions', 'not_found'))
                return
            body = self.read_json_object()
            if body is None:
                return
            try:
                status, payload = engine.complete(route[0], body)
            except Exception as exc:  # the policy failed: an infrastructure error (HTTP 500)
                _LOG.exception('rollout engine failed on episode %s', route[0])
                status, payload = 500, error_body(f'{type(exc).__name__}: {exc}',
                                                  'server_error')
            self.send_json(status, payload)

    return Handler

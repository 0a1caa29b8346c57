"""
The batched rollout engine for GPUs: an SGLang server generates, the trainer syncs weights.

``SglangRolloutEngine`` keeps the rollout engine's front (``engine.RolloutEngine``: one
OpenAI-compatible base URL per episode on 127.0.0.1, the exact prompt and generated tokens
and their log-probs recorded per episode) and sends the generation itself to an SGLang server
(``python -m sglang.launch_server``) through its native API:

- ``POST /generate`` with the rendered prompt's ``input_ids`` and ``sampling_params``
  (``temperature``, ``max_new_tokens``, ``stop_token_ids``, and a ``sampling_seed`` that is a
  function of the episode's seed and the call number), ``return_logprob: true``; the reply's
  ``meta_info.output_token_logprobs`` (``[logprob, token_id, text]`` per generated token) and
  ``meta_info.finish_reason.type`` become the ``Completion``. Requests of all running
  episodes go out concurrently (up to ``max_inflight``): the server batches them (continuous
  batching), instead of the in-process engine's one request at a time.
- weight sync after each iteration's optimizer steps: the trainer saves the checkpoint (a
  Hugging Face folder) and calls ``sync_weights(folder, iteration)``, which sends
  ``POST /pause_generation``, ``POST /update_weights_from_disk`` with ``model_path``,
  ``weight_version`` and ``flush_cache`` (the prefix cache holds the old weights' keys),
  ``POST /continue_generation``, then checks ``GET /get_model_info``'s ``weight_version``.
  The next iteration's rollouts therefore sample from the weights just trained, as on-policy
  GRPO needs. (miles/slime sync through NCCL, ``/update_weights_from_distributed``, which is
  faster; loading from the checkpoint the trainer writes anyway costs a disk read per
  iteration and keeps the protocol plain HTTP.)

The log-probs SGLang returns are of its own forward pass in its own dtype (bfloat16), so the
ratio of the first optimizer step is close to 1 but not exactly 1, as in every
trainer/engine split; temperature must be 1.0 (the recipe's), where SGLang's returned
log-probs and the loss's ``log_softmax(logits / T)`` are the same quantity.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from typing import Any
import urllib.error
import urllib.request

from .engine import RolloutEngine
from .policy import Completion, LocalPolicy
from .rollout import TrainingError

_LOG = logging.getLogger(__name__)


class SglangRolloutEngine(RolloutEngine):
    """
    The rollout engine's front over an SGLang server that does the generation.

    :param policy: the policy under training (its tokenizer renders the prompts; its weights
        are what ``sync_weights`` sends after each iteration).
    :param server_url: the SGLang server, e.g. ``http://127.0.0.1:30000``.
    :param max_new_tokens: the cap on generated tokens per call.
    :param max_inflight: the most requests sent to the server at once.
    :param timeout_s: per-request timeout (a long generation on a busy server is slow).
    :raises TrainingError: when the server does not answer ``/health`` within
        ``timeout_s``, or the policy's temperature is not 1.0.
    """

    def __init__(self, policy: LocalPolicy, *, server_url: str, max_new_tokens: int = 4096,
                 max_inflight: int = 256, timeout_s: float = 600.0) -> None:
        if policy.temperature != 1.0:
            raise TrainingError(f'temperature {policy.temperature} vs 1.0 for the sglang '
                                'engine: its returned log-probs match the loss only at 1.0')
        if max_inflight < 1:
            raise ValueError(f'max_inflight {max_inflight} vs >= 1')
        self.server_url = server_url.rstrip('/')
        self.timeout_s = timeout_s
        # The server is local or on the cluster network: never through an HTTP(S)_PROXY.
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        self._slots = threading.BoundedSemaphore(max_inflight)
        self._count_lock = threading.Lock()
        self.inflight = 0
        self.max_seen_inflight = 0
        self.weight_version = ''
        self._wait_healthy(timeout_s)
        super().__init__(policy, max_new_tokens=max_new_tokens)

    def __repr__(self) -> str:
        return (f'SglangRolloutEngine(127.0.0.1:{self.port} -> {self.server_url}, '
                f'weights {self.weight_version or "as loaded"})')

    def _request(self, path: str, body: dict[str, Any] | None = None, *,
                 timeout_s: float | None = None) -> dict[str, Any]:
        """Send one request (POST with a JSON body, else GET); return the JSON answer."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.server_url + path, data=data,
                                         headers={'Content-Type': 'application/json'})
        try:
            with self._opener.open(request, timeout=timeout_s or self.timeout_s) as reply:
                return json.loads(reply.read() or b'{}')
        except urllib.error.HTTPError as exc:
            raise TrainingError(f'SGLang {path} answered HTTP {exc.code} vs 200: '
                                f'{exc.read()[:300].decode(errors="replace")}') from None

    def _wait_healthy(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        last = ''
        while time.monotonic() < deadline:
            try:
                self._request('/health', timeout_s=5.0)
                return
            except (OSError, TrainingError) as exc:
                last = f'{type(exc).__name__}: {exc}'
            time.sleep(0.5)
        raise TrainingError(f'SGLang server {self.server_url} did not answer /health within '
                            f'{timeout_s:.0f} s ({last}); start it (README, "Training on a '
                            'GPU") or fix engine_url')

    def episode_generator(self, seed: int) -> Any:
        """Return the episode's stream of per-call sampling seeds (the server samples)."""
        return random.Random(seed)

    def generate(self, episode: Any, prompt: list[int], cap: int, *,
                 prefix: int = 0) -> Completion:
        """
        Ask the SGLang server for one completion; return its exact tokens and log-probs.

        ``prefix`` is unused: the server's radix cache reuses shared prompt prefixes itself.
        """
        body = {'input_ids': list(prompt), 'return_logprob': True,
                'sampling_params': {'temperature': self.policy.temperature,
                                    'max_new_tokens': cap,
                                    'stop_token_ids': sorted(self.policy.stop_ids),
                                    'skip_special_tokens': False,
                                    'sampling_seed': episode.generator.getrandbits(31)}}
        with self._slots:
            with self._count_lock:
                self.inflight += 1
                self.max_seen_inflight = max(self.max_seen_inflight, self.inflight)
            started = time.monotonic()
            try:
                reply = self._request('/generate', body)
            finally:
                with self._count_lock:
                    self.inflight -= 1
        meta = reply.get('meta_info') or {}
        pairs = meta.get('output_token_logprobs')
        if not isinstance(pairs, list):
            raise TrainingError(f'SGLang /generate answered without meta_info.'
                                f'output_token_logprobs vs return_logprob=true: {reply!r:.200}')
        ids = tuple(int(item[1]) for item in pairs)
        logprobs = tuple(float(item[0]) for item in pairs)
        finish = (meta.get('finish_reason') or {}).get('type', 'length')
        with self._count_lock:
            self.generate_s += time.monotonic() - started
            self.generated_tokens += len(ids)
        return Completion(tuple(prompt), ids, logprobs, 'stop' if finish == 'stop' else 'length')

    def sync_weights(self, folder: Any, version: int) -> None:
        """
        Load the trained weights in ``folder`` into the server before the next rollouts.

        :param folder: the checkpoint just written (a Hugging Face folder).
        :param version: the iteration, sent as ``weight_version`` and checked afterwards.
        :raises TrainingError: when the server refuses the update or reports another version.
        """
        started = time.monotonic()
        self._request('/pause_generation', {})
        try:
            answer = self._request('/update_weights_from_disk', {
                'model_path': str(folder), 'weight_version': str(version),
                'flush_cache': True})
        finally:
            self._request('/continue_generation', {})
        if not answer.get('success'):
            raise TrainingError(f'SGLang refused the weights of {folder}: '
                                f'{answer.get("message")!r}; check that the server runs the '
                                'same architecture, then resume')
        info = self._request('/get_model_info')
        if info.get('weight_version') != str(version):
            raise TrainingError(f'SGLang reports weight_version {info.get("weight_version")!r} '
                                f'vs {str(version)!r} just loaded from {folder}; the server '
                                'did not take the update')
        self.weight_version = str(version)
        _LOG.info('SGLang weights synced to %s (version %s) in %.1f s', folder, version,
                  time.monotonic() - started)

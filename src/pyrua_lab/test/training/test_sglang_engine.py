"""The SGLang rollout engine against a fake of SGLang's HTTP API on 127.0.0.1 (no GPU)."""

from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import random
import threading
import time

import pytest


class FakeSglang:
    """
    SGLang's native endpoints as the engine uses them, answered from a seeded random stream.

    ``/generate`` holds each request for ``hold_s`` (a GPU batch step), so requests that the
    engine sends concurrently overlap here; it records the most that overlapped.
    ``/update_weights_from_disk`` accepts a folder with ``config.json`` and refuses anything
    else, as SGLang's loader does.
    """

    def __init__(self, vocab=50, stop_id=7, hold_s=0.3):
        self.vocab, self.stop_id, self.hold_s = vocab, stop_id, hold_s
        self.requests, self.version, self.paused = [], 'base', False
        self.inflight = self.max_inflight = 0
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def log_message(self, *args):
                """Quiet."""

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):  # noqa: N802
                if self.path == '/health':
                    self._send(200, {})
                elif self.path == '/get_model_info':
                    self._send(200, {'model_path': 'm', 'weight_version': fake.version})
                else:
                    self._send(404, {'detail': 'Not Found'})

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers['Content-Length'])) or b'{}')
                with fake.lock:
                    fake.requests.append((self.path, body))
                self._send(*fake.answer(self.path, body))

        self.httpd = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f'http://127.0.0.1:{self.httpd.server_address[1]}'

    def answer(self, path, body):
        from pathlib import Path

        if path == '/generate':
            return 200, self.generate(body)
        if path in ('/pause_generation', '/continue_generation'):
            self.paused = path == '/pause_generation'
            return 200, {}
        if path == '/update_weights_from_disk':
            if not (Path(body['model_path']) / 'config.json').is_file():
                return 200, {'success': False, 'message': f'no config.json in '
                                                          f'{body["model_path"]}'}
            self.version = body['weight_version']
            return 200, {'success': True, 'message': 'Succeeded to update model weights.'}
        return 404, {'detail': 'Not Found'}

    def generate(self, body):
        with self.lock:
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
        time.sleep(self.hold_s)  # the peer's batch step; the tests poll, never sleep
        with self.lock:
            self.inflight -= 1
        params = body['sampling_params']
        rng = random.Random(params['sampling_seed'])
        ids = []
        while len(ids) < params['max_new_tokens']:
            ids.append(rng.randrange(self.vocab))
            if ids[-1] in params['stop_token_ids']:
                break
        finish = 'stop' if ids[-1] in params['stop_token_ids'] else 'length'
        return {'text': '', 'meta_info': {
            'output_token_logprobs': [[-0.01 * (i + 1), t, None] for i, t in enumerate(ids)],
            'finish_reason': {'type': finish}, 'prompt_tokens': len(body['input_ids']),
            'completion_tokens': len(ids), 'weight_version': self.version}}

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def fake_sglang():
    server = FakeSglang()
    yield server
    server.close()


def _chat(url, text):
    import openai

    client = openai.OpenAI(base_url=url, api_key='none', max_retries=0)
    return client.chat.completions.create(model='policy', max_tokens=6,
                                          messages=[{'role': 'user', 'content': text}])


def test_concurrent_episodes_are_generated_together_with_their_own_seeds(tiny_model,
                                                                         fake_sglang):
    from pyrua_lab.training.policy import LocalPolicy
    from pyrua_lab.training.sglang_engine import SglangRolloutEngine

    policy = LocalPolicy(tiny_model)
    with SglangRolloutEngine(policy, server_url=fake_sglang.url, max_new_tokens=6,
                             max_inflight=3) as engine:
        urls = [engine.open_episode(f'e{i}', seed=100 + i % 2) for i in range(6)]
        with ThreadPoolExecutor(6) as pool:
            replies = list(pool.map(lambda u: _chat(u, 'press red'), urls))
        completions = [engine.take(f'e{i}') for i in range(6)]
    assert fake_sglang.max_inflight == 3, 'six episodes at once, at most max_inflight=3 sent'
    assert engine.max_seen_inflight == 3
    generated = [body for path, body in fake_sglang.requests if path == '/generate']
    assert len(generated) == 6
    prompt = policy.render([{'role': 'user', 'content': 'press red'}])
    assert all(body['input_ids'] == prompt for body in generated), 'our exact prompt tokens'
    assert all(body['return_logprob'] and body['sampling_params']['temperature'] == 1.0
               and body['sampling_params']['stop_token_ids'] == sorted(policy.stop_ids)
               for body in generated)
    for (completion,), reply in zip(completions, replies, strict=True):
        assert completion.prompt_ids == tuple(prompt)
        assert len(completion.logprobs) == len(completion.completion_ids) >= 1
        assert completion.logprobs[0] == pytest.approx(-0.01)
        assert reply.usage.completion_tokens == len(completion.completion_ids)
    # Equal episode seeds give equal seeds on the server (and so equal samples); others differ.
    ids = [c[0].completion_ids for c in completions]
    assert ids[0] == ids[2] == ids[4] and ids[1] == ids[3] == ids[5] and ids[0] != ids[1]


def test_weight_sync_pauses_loads_the_checkpoint_and_checks_the_version(tiny_model,
                                                                        fake_sglang, tmp_path):
    from pyrua_lab.training import TrainingError
    from pyrua_lab.training.policy import LocalPolicy
    from pyrua_lab.training.sglang_engine import SglangRolloutEngine

    policy = LocalPolicy(tiny_model)
    with SglangRolloutEngine(policy, server_url=fake_sglang.url) as engine:
        engine.sync_weights(tiny_model, 3)
        assert fake_sglang.version == '3' and engine.weight_version == '3'
        paths = [path for path, _ in fake_sglang.requests]
        assert paths == ['/pause_generation', '/update_weights_from_disk',
                         '/continue_generation']
        assert fake_sglang.requests[1][1] == {'model_path': str(tiny_model),
                                              'weight_version': '3', 'flush_cache': True}
        with pytest.raises(TrainingError, match=r'SGLang refused the weights of .*no config'):
            engine.sync_weights(tmp_path, 4)
        assert not fake_sglang.paused, 'generation continues after a refused update'
        assert engine.weight_version == '3'


def test_sglang_engine_is_gated_on_cuda_and_needs_its_url(toy_config, tmp_path):
    from pyrua_lab.training import GrpoTrainer, TrainingError

    with pytest.raises(ValueError, match=r"engine 'sglang' vs engine_url ''"):
        toy_config(engine='sglang')
    trainer = GrpoTrainer(toy_config(engine='sglang', engine_url='http://127.0.0.1:9',
                                     device='cpu'), tmp_path)
    with pytest.raises(TrainingError, match=r"engine 'sglang' needs the policy on CUDA vs cpu"):
        trainer.run()


def test_an_unreachable_server_is_reported_with_what_to_do(tiny_model):
    from pyrua_lab.training import TrainingError
    from pyrua_lab.training.policy import LocalPolicy
    from pyrua_lab.training.sglang_engine import SglangRolloutEngine

    with pytest.raises(TrainingError, match=r'did not answer /health within 2 s.*engine_url'):
        SglangRolloutEngine(LocalPolicy(tiny_model), server_url='http://127.0.0.1:9',
                            timeout_s=2.0)

"""A real open model drives the twin: both planners end to end, token accounting in its tokens.

SmolLM2-135M (greedy, so deterministic) is the smallest model that installs from the
registry; it rarely solves anything, so these tests check the path, not the skill: the CLI
serves the model itself (``--model local:...``, no endpoint, no key), every call is counted
in the model's own tokens, the recording holds the calls, and the episode ends with a reason.
"""

import json

from pyrua_agent.budgets import BudgetConfig
from pyrua_agent.cli import main
from pyrua_agent.episode import EpisodeSpec, open_spec_world, run_episode
from pyrua_agent.llm import EndpointConfig
from pyrua_agent.llm.client import text_only_messages
from pyrua_agent.llm.local import serving
from pyrua_agent.planners import make_planner
from pyrua_agent.recording import read_transcript
from pyrua_local.testing import require_local_model
import pytest

pytestmark = pytest.mark.slow
SMOL = 'local:smollm2-135m'
END_REASONS = {'solved', 'gave_up', 'call_budget', 'cell_budget', 'wall_clock',
               'context_overflow'}


@pytest.fixture(autouse=True)
def _model():
    require_local_model('smollm2-135m')


@pytest.fixture(scope='module')
def smol_url():
    """One SmolLM2 server for the planner-level tests (its KV cache keeps the system prompt)."""
    require_local_model('smollm2-135m')
    from pyrua_local import LocalServer

    with LocalServer(SMOL) as server:
        yield server.base_url


class Capture:
    """Wraps the episode's client (the planner's wrap_client hook) to see each request."""

    def __init__(self, client, sent):
        self._client = client
        self._sent = sent

    def __getattr__(self, name):
        return getattr(self._client, name)

    def complete(self, messages, tools=None, tool_choice=None, prefill=None):
        reply = self._client.complete(messages, tools, tool_choice, prefill)
        sent = list(messages) + ([{'role': 'assistant', 'content': prefill}] if prefill else [])
        self._sent.append((sent, list(tools or ()), reply))
        return reply


def _captured_episode(spec, max_llm_calls=2):
    """Run the code planner on the twin with a served local model; keep every request."""
    sent = []
    with serving(spec.endpoint) as endpoint:
        assert not endpoint.takes_images and endpoint.base_url.startswith('http://127.0.0.1:')
        world, close = open_spec_world(spec)
        try:
            planner = make_planner('code', primitives=world.primitives,
                                   endpoint=endpoint,
                                   wrap_client=lambda client: Capture(client, sent))
            result = run_episode(world, planner,
                                 budgets=BudgetConfig(max_llm_calls=max_llm_calls))
        finally:
            close()
    return result, endpoint, sent


@pytest.mark.parametrize('planner', ['code', 'tools'])
def test_pyrua_run_serves_a_local_model_and_records_its_calls(tmp_path, monkeypatch, capsys,
                                                              planner):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)  # a local model needs no key
    status = main(['run', '--task', 'pick_place', '--planner', planner, '--model', SMOL,
                   '--max-calls', '1', '--json', 'episode.json'])
    assert status == 0
    record = json.loads((tmp_path / 'episode.json').read_text())
    assert record['end_reason'] in END_REASONS, record['end_detail']
    assert record['planner'] == planner
    assert {c['model'] for c in record['calls']} == {'smollm2-135m'}
    assert record['llm_calls'] == 1
    assert record['input_tokens'] > 1000 and record['output_tokens'] > 0
    assert record['images_sent'] == 0  # text only: the images went as labels
    (run_dir,) = (tmp_path / 'runs').iterdir()
    calls = read_transcript(run_dir).llm_calls
    assert len(calls) == record['llm_calls']
    assert sum(c['accounting']['input_tokens'] for c in calls) == record['input_tokens']
    assert '[llm] call 1:' in capsys.readouterr().out


def test_token_counts_are_the_models_own(smol_url):
    from pyrua_local.tokenizer import ModelTokenizer

    spec = EpisodeSpec(task='pick_place', planner='code', record=False,
                       endpoint=EndpointConfig(model=SMOL, base_url=smol_url,
                                               max_output_tokens=96))
    result, endpoint, sent = _captured_episode(spec)
    assert result.ledger.totals().llm_calls == len(sent) >= 1
    tokenizer = ModelTokenizer('smollm2-135m')
    for index, (messages, tools, reply) in enumerate(sent):
        messages = text_only_messages(messages)
        prefill = ''
        if messages[-1]['role'] == 'assistant':  # the fence form's first reply, continued
            prefill = messages.pop()['content']
        expected = len(tokenizer.tokenize(tokenizer.render(messages, tools) + prefill))
        assert reply.record.input_tokens == expected
        assert 0 < reply.record.output_tokens <= endpoint.max_output_tokens
        if index:  # the history is a prefix of the next request: its KV cache is reused
            assert reply.record.cached_input_tokens > expected // 2


def test_pyrua_eval_serves_one_local_model_for_all_its_episodes(tmp_path, capsys):
    from pyrua_lab.evaluation.store import read_records

    spec = tmp_path / 'spec.yaml'
    spec.write_text(f"""\
name: local
tasks: [pick_place, lift_object]
seeds: [0]
layouts: [0]
interfaces:
  code: {{planner: code, endpoint: {{model: '{SMOL}', max_output_tokens: 64}}}}
budgets: {{max_llm_calls: 1}}
""")
    assert main(['eval', str(spec), '--out', str(tmp_path / 'out'), '--workers', '2',
                 '--no-progress']) == 0
    records = read_records(tmp_path / 'out')
    assert len(records) == 2
    assert all(r['end_reason'] in END_REASONS and r['llm_calls'] == 1 for r in records)
    assert {r['calls'][0]['model'] for r in records} == {'smollm2-135m'}
    assert 'SR code' in capsys.readouterr().out


def test_a_reply_cut_at_the_output_limit_is_told_so(smol_url):
    spec = EpisodeSpec(task='pick_place', planner='code', record=False,
                       endpoint=EndpointConfig(model=SMOL, base_url=smol_url,
                                               max_output_tokens=6))
    result, _, sent = _captured_episode(spec)
    first = sent[0][2]
    assert first.finish_reason == 'length' and first.record.output_tokens == 6
    assert not first.tool_calls
    correction = sent[1][0][-1]
    assert correction['role'] == 'user'
    assert 'cut off at the output limit (max_output_tokens=6) after 6 tokens' in (
        correction['content'])

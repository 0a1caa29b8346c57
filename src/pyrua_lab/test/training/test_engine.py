"""The rollout engine: a real OpenAI-compatible server that records the generated tokens."""

from pathlib import Path

from pyrua_agent.budgets import BudgetConfig
from pyrua_agent.episode import EpisodeSpec, run_episode_spec
from pyrua_agent.llm import ChatClient, EndpointConfig
from pyrua_agent.llm.errors import ContextOverflow
import pytest


@pytest.fixture
def engine(tiny_model):
    from pyrua_lab.training.engine import RolloutEngine
    from pyrua_lab.training.policy import LocalPolicy

    with RolloutEngine(LocalPolicy(tiny_model), max_new_tokens=8) as engine:
        yield engine


def _endpoint(url):
    return EndpointConfig(base_url=url, model='policy', max_retries=0)


def test_code_agent_episode_runs_against_the_engine_and_its_tokens_are_recorded(
        engine, tmp_path):
    import pyrua_lab.training  # noqa: F401  (registers the toy world)

    solved = 0
    for index in range(6):
        url = engine.open_episode(f'ep-{index}', seed=index)
        spec = EpisodeSpec(task='press_red', world='toy', planner='code',
                           endpoint=_endpoint(url), runs_dir=str(tmp_path),
                           budgets=BudgetConfig(max_cells=3, max_llm_calls=3))
        result = run_episode_spec(spec)
        completions = engine.take(f'ep-{index}')
        assert len(completions) == result.ledger.totals().llm_calls >= 1
        for completion in completions:
            assert len(completion.logprobs) == len(completion.completion_ids) <= 8
            assert all(lp <= 0.0 for lp in completion.logprobs)
        calls = result.ledger.calls
        assert [c.output_tokens for c in calls] == [len(c.completion_ids) for c in completions]
        assert [c.input_tokens for c in calls] == [len(c.prompt_ids) for c in completions]
        solved += result.success
        transcript = Path(result.run_dir) / 'transcript.jsonl'
        assert transcript.is_file()
    assert engine.generated_tokens > 0 and engine.generate_s > 0
    assert 0 < solved < 6, 'the random tiny policy solves the toy task sometimes, not always'


def test_the_same_seed_samples_the_same_tokens(engine):
    messages = [{'role': 'user', 'content': 'press'}]
    outputs = []
    for name in ('a', 'b'):
        url = engine.open_episode(name, seed=7)
        with ChatClient(_endpoint(url)) as client:
            client.complete(messages)
        outputs.append(engine.take(name)[0].completion_ids)
    assert outputs[0] == outputs[1]


def test_engine_refuses_unknown_episodes_a_foreign_temperature_and_long_prompts(engine):
    with ChatClient(_endpoint(f'http://127.0.0.1:{engine.port}/episodes/nope/v1')) as client:
        with pytest.raises(Exception, match="episode 'nope' is not open"):
            client.complete([{'role': 'user', 'content': 'x'}])
    url = engine.open_episode('t', seed=0)
    hot = EndpointConfig(base_url=url, model='policy', max_retries=0, temperature=0.5)
    with ChatClient(hot) as client, pytest.raises(Exception, match='temperature 0.5 vs'):
        client.complete([{'role': 'user', 'content': 'x'}])
    from pyrua_lab.training.tiny import python_call_text

    long_text = python_call_text("robo.press('red')") * 5000  # one token each: 5000 > 4096
    with ChatClient(_endpoint(url)) as client, pytest.raises(ContextOverflow,
                                                             match='4096 tokens'):
        client.complete([{'role': 'user', 'content': long_text}])
    assert engine.take('t') == ()
    with pytest.raises(ValueError, match='letters, digits'):
        engine.open_episode('a/b', seed=0)


def test_the_system_message_is_computed_once_per_set_of_weights(engine):
    # Every episode of a run opens with the same long system prompt: the engine keeps its
    # cache and computes only what follows, with the numbers a whole forward pass gives.
    from pyrua_lab.training.policy import token_logprobs

    policy = engine.policy
    messages = [{'role': 'system', 'content': 'You drive a robot. ' * 50},
                {'role': 'user', 'content': 'press'}]
    runs = []
    for name in ('a', 'b', 'c'):
        if name == 'c':
            engine.sync_weights(None, 1)  # an optimizer step: the kept cache is stale
        url = engine.open_episode(name, seed=7)
        with ChatClient(_endpoint(url)) as client:
            client.complete(messages)
        runs.append(engine.take(name)[0])
        if name == 'b':
            assert policy.prefix_hits == 1, 'the second episode reuses the prefix of the first'
    assert policy.prefix_hits == 1, 'after a weight change the prefix is computed again'
    assert runs[0] == runs[1] == runs[2]  # tokens and log-probs, bit for bit
    whole = token_logprobs(policy, runs[0].prompt_ids, runs[0].completion_ids)
    assert whole.detach().numpy() == pytest.approx(runs[0].logprobs, abs=1e-4)
    alone = policy.system_prefix(messages, None, runs[0].prompt_ids)
    assert 0 < alone < len(runs[0].prompt_ids)
    assert policy.system_prefix(messages[1:], None, runs[0].prompt_ids) == 0  # no system one
    with pytest.raises(ValueError, match='prefix 3 vs 0 <= prefix < 3 prompt tokens'):
        policy.sample([1, 2, 3], 4, policy.generator(0), prefix=3)


def test_a_prefilled_reply_is_continued_and_only_the_continuation_is_returned(engine):
    # The fence form prefills the first reply with the block's opening (vLLM's
    # continue_final_message): the prefill is prompt, not generated, and not sent back.
    from pyrua_agent.planners.code_agent import FENCE_OPENING

    policy = engine.policy
    user = [{'role': 'user', 'content': 'press'}]
    url = engine.open_episode('fence', seed=3)
    fence = EndpointConfig(base_url=url, model='policy', max_retries=0,
                           continues_final_message=True)
    with ChatClient(fence) as client:
        reply = client.complete(user, prefill=FENCE_OPENING)
    completion = engine.take('fence')[0]
    partial = user + [{'role': 'assistant', 'content': FENCE_OPENING}]
    assert list(completion.prompt_ids) == policy.render(partial, continue_final=True)
    assert list(completion.prompt_ids) != policy.render(partial)  # not a closed turn
    assert reply.content == policy.decode(completion.completion_ids) or reply.tool_calls
    engine.open_episode('bad', seed=0)
    body = {'messages': user, 'continue_final_message': True, 'add_generation_prompt': False}
    status, payload = engine.complete('bad', body)
    assert status == 400 and "not the assistant's partial reply" in payload['error']['message']
    status, payload = engine.complete('bad', {**body, 'messages': partial,
                                              'add_generation_prompt': True})
    assert status == 400 and 'send add_generation_prompt=false' in payload['error']['message']

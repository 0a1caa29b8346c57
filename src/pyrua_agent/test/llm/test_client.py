"""The chat client against the loopback server: accounting, retries, faults and secrets."""

import json

from pyrua_agent.accounting import PriceTable
from pyrua_agent.llm import (
    ChatClient,
    ContextOverflow,
    EndpointConfig,
    EndpointConfigError,
    EndpointRejected,
    EndpointUnavailable,
    python_tool,
    system_message,
    user_message,
)
from pyrua_agent.testing import code_turn, ScriptedFault, ScriptedReply, ScriptedStall, text_turn
import pytest

LONG_SYSTEM = 'You control a dual-arm robot station through Python. ' * 200


def _messages(text='pick up the red cube'):
    return [system_message(LONG_SYSTEM), user_message(text)]


def test_call_record_equals_usage_the_server_reported(server, make_client):
    server.reset([ScriptedReply(content='thinking done', reasoning_tokens=17,
                                calls=(code_turn('print(robo.state())').calls[0],))])
    client = make_client()
    reply = client.complete(_messages(), tools=[python_tool()])
    (usage,) = server.usages
    record = reply.record
    assert record.input_tokens == usage['prompt_tokens'] > 0
    assert record.output_tokens == usage['completion_tokens']
    assert record.reasoning_tokens == 17
    assert record.cached_input_tokens == usage['prompt_tokens_details']['cached_tokens']
    assert reply.tool_calls[0].name == 'python'
    assert json.loads(reply.tool_calls[0].arguments) == {'code': 'print(robo.state())'}
    assert client.ledger.calls == (record,)


def test_cached_tokens_of_a_repeated_prefix_pass_through(server, make_client):
    server.reset([text_turn('one'), text_turn('two'), ScriptedReply('three', cached_tokens=256)])
    client = make_client()
    first = client.complete(_messages('first question'))
    second = client.complete(_messages('second question'))
    third = client.complete(_messages('third question'))
    assert first.record.cached_input_tokens == 0
    # the long system prompt is an identical prefix over 1024 tokens, counted in 128s
    assert second.record.cached_input_tokens >= 1024
    assert second.record.cached_input_tokens % 128 == 0
    assert second.record.cached_input_tokens < second.record.input_tokens
    assert third.record.cached_input_tokens == 256
    totals = client.ledger.totals()
    assert totals.cached_input_tokens == sum(u['prompt_tokens_details']['cached_tokens']
                                             for u in server.usages)
    assert totals.input_tokens == sum(u['prompt_tokens'] for u in server.usages)


def test_retries_on_429_and_5xx_are_not_counted_as_calls(server, make_client):
    server.reset([ScriptedFault(429), ScriptedFault(500), ScriptedFault(503), text_turn('ok')])
    client = make_client(max_retries=3)
    reply = client.complete(_messages())
    assert reply.content == 'ok'
    assert reply.record.retries == 3
    totals = client.ledger.totals()
    assert totals.llm_calls == 1
    assert totals.infra_events == 3
    assert [e.status for e in client.ledger.infra_events] == [429, 500, 503]
    assert [r.status for r in server.requests] == [429, 500, 503, 200]


def test_retry_after_header_sets_the_wait(server, make_client):
    waits = []
    server.reset([ScriptedFault(429, retry_after_s=0.04), text_turn('ok')])
    client = make_client(sleep=waits.append)
    client.complete(_messages())
    assert waits == [pytest.approx(0.04)]
    assert client.ledger.infra_events[0].kind == 'rate_limit'


def test_backoff_doubles_and_is_capped(server):
    waits = []
    server.reset([ScriptedFault(500)] * 4 + [text_turn('ok')])
    config = EndpointConfig(base_url=server.base_url, model='loopback', max_retries=4,
                            backoff_initial_s=0.01, backoff_max_s=0.03, backoff_jitter=0.0)
    with ChatClient(config, sleep=waits.append) as client:
        client.complete(_messages())
    assert waits == pytest.approx([0.01, 0.02, 0.03, 0.03])


def test_exhausted_retries_raise_endpoint_unavailable(server, make_client):
    server.reset([ScriptedFault(503)] * 3)
    client = make_client(max_retries=2)
    with pytest.raises(EndpointUnavailable, match='failed 3 attempts vs max_retries=2') as info:
        client.complete(_messages())
    assert len(info.value.events) == 3
    assert client.ledger.totals().llm_calls == 0
    assert client.ledger.totals().infra_events == 3


def test_timeout_is_retried_then_the_answer_is_used(server, make_client):
    server.reset([ScriptedStall(10.0), text_turn('late but fine')])
    client = make_client(timeout_s=0.3, max_retries=1)
    reply = client.complete(_messages())
    assert reply.content == 'late but fine'
    (event,) = client.ledger.infra_events
    assert event.kind == 'timeout'
    assert 'timeout_s=0.3 s' in event.detail
    assert client.ledger.totals().llm_calls == 1


def test_connection_refused_ends_in_endpoint_unavailable(make_client):
    client = make_client(base_url='http://127.0.0.1:9/v1', max_retries=1)
    with pytest.raises(EndpointUnavailable, match='last failure: connection'):
        client.complete(_messages())
    assert [e.kind for e in client.ledger.infra_events] == ['connection', 'connection']


def test_context_overflow_is_its_own_error_and_not_retried(server, make_client):
    server.reset([text_turn('never sent')])
    server.context_tokens = 500
    client = make_client()
    with pytest.raises(ContextOverflow, match='maximum context length is 500 tokens'):
        client.complete(_messages())
    assert len(server.requests) == 1
    assert client.ledger.totals().infra_events == 0


def test_other_4xx_is_rejected_without_retry(server, make_client):
    server.reset([ScriptedFault(404, message='model nope does not exist', code='model_not_found')])
    client = make_client()
    with pytest.raises(EndpointRejected, match='answered 404: model_not_found') as info:
        client.complete(_messages())
    assert info.value.status == 404
    assert not isinstance(info.value, ContextOverflow)
    assert len(server.requests) == 1


def test_optional_settings_are_sent_only_when_set(server, make_client):
    server.reset([text_turn('a'), text_turn('b')])
    make_client().complete(_messages())
    make_client(reasoning_effort='low', temperature=0.2, max_output_tokens=300).complete(
        _messages(), tools=[python_tool()], tool_choice='required')
    plain, tuned = (r.body for r in server.requests)
    assert not {'reasoning_effort', 'temperature', 'max_completion_tokens', 'tools',
                'tool_choice'} & set(plain)
    assert tuned['reasoning_effort'] == 'low'
    assert tuned['temperature'] == 0.2
    assert tuned['max_completion_tokens'] == 300
    assert tuned['tool_choice'] == 'required'
    assert tuned['tools'][0]['function']['name'] == 'python'


def test_api_key_is_sent_but_never_shown_or_recorded(server, make_client, monkeypatch):
    secret = 'sk-test-0123456789abcdef'
    monkeypatch.setenv('PYRUA_TEST_KEY', secret)
    server.reset([text_turn('ok')])
    client = make_client(api_key_env='PYRUA_TEST_KEY')
    reply = client.complete(_messages())
    (request,) = server.requests
    assert request.authorization == 'Bearer ***'
    shown = ' '.join([repr(client), repr(client.config), repr(reply), repr(request),
                      json.dumps(request.body), json.dumps(client.ledger.to_dict())])
    assert secret not in shown
    assert 'PYRUA_TEST_KEY' in repr(client.config)


def test_keyless_local_endpoint_gets_a_placeholder_key(server, make_client):
    server.reset([text_turn('ok')])
    assert make_client().complete(_messages()).content == 'ok'
    assert server.requests[0].authorization == 'Bearer ***'


def test_openai_url_without_a_key_is_refused_with_the_variable_name():
    with pytest.raises(EndpointConfigError, match='OPENAI_API_KEY is unset'):
        ChatClient(EndpointConfig())


def test_cost_comes_from_the_price_table(server, tmp_path, make_client):
    prices = tmp_path / 'prices.yaml'
    prices.write_text('models:\n  loopback: {input: 2.0, cached_input: 0.5, output: 8.0}\n')
    server.reset([ScriptedReply('x', cached_tokens=1024)])
    client = make_client(prices=PriceTable.load(prices))
    record = client.complete(_messages()).record
    expected = ((record.input_tokens - 1024) * 2.0 + 1024 * 0.5 + record.output_tokens * 8.0) / 1e6
    assert record.cost_usd == pytest.approx(expected)
    assert client.ledger.totals().cost_usd == pytest.approx(expected)


def test_unpriced_model_has_no_cost_and_a_note(server, make_client):
    server.reset([text_turn('x')])
    client = make_client(model='my-local-llama')
    record = client.complete(_messages()).record
    totals = client.ledger.totals()
    assert record.cost_usd is None
    assert totals.cost_usd is None
    assert "no price for model 'my-local-llama'" in totals.cost_note


def test_bad_config_values_name_the_field_and_bound():
    with pytest.raises(ValueError, match='max_retries -1 vs >= 0'):
        EndpointConfig(max_retries=-1)
    with pytest.raises(ValueError, match="reasoning_effort 'extreme' vs"):
        EndpointConfig(reasoning_effort='extreme')
    with pytest.raises(ValueError, match='base_url'):
        EndpointConfig(base_url='localhost:8000')


def test_local_models_sample_only_the_call_after_a_repeat():
    from pyrua_agent.llm.local import local_endpoint, LOCAL_REPEAT_TEMPERATURE

    served = local_endpoint(EndpointConfig(model='local'), 'http://127.0.0.1:8080/v1')
    assert served.temperature is None and served.repeat_temperature == LOCAL_REPEAT_TEMPERATURE
    kept = local_endpoint(EndpointConfig(model='local', repeat_temperature=0.0),
                          'http://127.0.0.1:8080/v1')
    assert kept.repeat_temperature == 0.0
    assert EndpointConfig().repeat_temperature is None  # hosted endpoints: unchanged
    with pytest.raises(ValueError, match=r'repeat_temperature 3 vs \[0, 2\]'):
        EndpointConfig(repeat_temperature=3)

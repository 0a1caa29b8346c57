"""The loopback OpenAI-compatible server other packages' tests use."""

import json
import urllib.error
import urllib.request

import openai
from pyrua_agent.llm.tokens import message_tokens, prompt_tokens, text_tokens, tools_tokens
from pyrua_agent.testing import (
    cached_prefix_tokens,
    check_chat_request,
    code_turn,
    LoopbackLLMServer,
    ScriptedFault,
    ScriptedReply,
    text_turn,
)
import pytest


@pytest.fixture(scope='module')
def loopback():
    with LoopbackLLMServer() as server:
        yield server


def _client(server):
    return openai.OpenAI(base_url=server.base_url, api_key='sk-local', max_retries=0, timeout=5)


def _post(server, body):
    request = urllib.request.Request(server.base_url + '/chat/completions',
                                     data=json.dumps(body).encode(),
                                     headers={'Content-Type': 'application/json'})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, dict(error.headers), json.loads(error.read())


def test_usage_is_computed_with_the_offline_tokenizer(loopback):
    loopback.reset([code_turn('print(1)')])
    messages = [{'role': 'user', 'content': 'hello there'}]
    tools = [{'type': 'function', 'function': {'name': 'python', 'parameters': {}}}]
    with _client(loopback) as client:
        reply = client.chat.completions.create(model='m', messages=messages, tools=tools)
    assert reply.usage.prompt_tokens == prompt_tokens(messages, tools)
    assert reply.usage.prompt_tokens == 3 + tools_tokens(tools) + message_tokens(messages[0])
    assert reply.usage.completion_tokens == text_tokens('python') + text_tokens(
        json.dumps({'code': 'print(1)'}))
    assert reply.choices[0].finish_reason == 'tool_calls'
    assert loopback.requests[0].body['tools'] == tools


def test_cached_prefix_rounds_down_to_128_with_a_1024_floor():
    previous = [('tools', 100), ('system', 1000), ('user-1', 50)]
    assert cached_prefix_tokens([('tools', 100), ('system', 1000), ('user-2', 50)],
                                previous) == 1024
    assert cached_prefix_tokens([('tools', 100), ('system', 800)], previous) == 0
    assert cached_prefix_tokens([('other tools', 100), ('system', 1000)], previous) == 0
    assert cached_prefix_tokens(previous + [('assistant', 500)], previous) == 1024


def test_prompt_caching_can_be_switched_off():
    long_system = {'role': 'system', 'content': 'cache me ' * 800}
    with LoopbackLLMServer([text_turn('a'), text_turn('b')], prompt_caching=False) as server:
        with _client(server) as client:
            for text in ('one', 'two'):
                client.chat.completions.create(
                    model='m', messages=[long_system, {'role': 'user', 'content': text}])
    assert [u['prompt_tokens_details']['cached_tokens'] for u in server.usages] == [0, 0]


def test_fault_turns_send_status_and_retry_after(loopback):
    loopback.reset([ScriptedFault(429, retry_after_s=2.5, message='slow down')])
    status, headers, body = _post(loopback, {'model': 'm', 'messages': [
        {'role': 'user', 'content': 'hi'}]})
    assert status == 429
    assert headers['Retry-After'] == '2.5'
    assert body['error']['message'] == 'slow down'
    assert loopback.usages == []


def test_tool_messages_must_answer_the_preceding_tool_calls():
    call = {'id': 'call_1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}
    answered = [{'role': 'user', 'content': 'go'},
                {'role': 'assistant', 'content': None, 'tool_calls': [call]},
                {'role': 'tool', 'tool_call_id': 'call_1', 'content': 'done'}]
    assert check_chat_request({'model': 'm', 'messages': answered}, False) == ''
    skipped = answered[:2] + [{'role': 'user', 'content': 'images'}]
    assert "missing ['call_1']" in check_chat_request({'model': 'm', 'messages': skipped}, False)
    orphan = [answered[0], answered[2]]
    assert 'must be a response to' in check_chat_request({'model': 'm', 'messages': orphan},
                                                         False)


def test_invalid_request_is_recorded_and_does_not_use_a_turn(loopback):
    loopback.reset([text_turn('kept')])
    status, _, body = _post(loopback, {'model': 'm', 'messages': []})
    assert status == 400
    assert 'non-empty' in body['error']['message']
    assert loopback.remaining == 1
    assert loopback.requests[0].status == 400


def test_exhausted_script_is_a_400_that_says_so(loopback):
    loopback.reset([])
    status, _, body = _post(loopback, {'model': 'm', 'messages': [
        {'role': 'user', 'content': 'hi'}]})
    assert status == 400
    assert body['error']['code'] == 'script_exhausted'


def test_callable_turn_sees_the_request(loopback):
    loopback.reset([lambda body: text_turn(f"{len(body['messages'])} messages")])
    with _client(loopback) as client:
        reply = client.chat.completions.create(model='m', messages=[
            {'role': 'system', 'content': 's'}, {'role': 'user', 'content': 'u'}])
    assert reply.choices[0].message.content == '2 messages'


def test_reasoning_tokens_are_part_of_completion_tokens(loopback):
    loopback.reset([ScriptedReply(content='ok', reasoning_tokens=40)])
    with _client(loopback) as client:
        usage = client.chat.completions.create(
            model='m', messages=[{'role': 'user', 'content': 'u'}]).usage
    assert usage.completion_tokens_details.reasoning_tokens == 40
    assert usage.completion_tokens == 40 + text_tokens('ok')


def test_models_endpoint_lists_the_model(loopback):
    with _client(loopback) as client:
        assert [m.id for m in client.models.list()] == ['loopback']

"""Tool calls a real model writes as text are read by the planners' client, in every form.

A real model behind a server that leaves tool calls in ``content`` (as llama.cpp's server
does without a tool parser, ``--tool-calls text``) is given a prompt under which it writes a
given form (greedy decoding: the same reply every time): Qwen2.5-Coder-0.5B writes a JSON
object when tools are offered, SmolLM2-135M (a template without tools) a ```python block.
The test first reads the raw reply with the plain ``openai`` client, to know which form the
model really wrote, then checks that ``ChatClient`` turns the same reply into the tool call.
"""

import openai
from pyrua_agent.llm import ChatClient, EndpointConfig
from pyrua_agent.llm.tools import python_tool
from pyrua_local import BackendConfig, LocalServer, parse_text_tool_calls
from pyrua_local.testing import require_local_model
import pytest

pytestmark = pytest.mark.slow
FORMS = {
    'json': ('qwen2.5-coder-0.5b', [
        {'role': 'system', 'content': 'Answer with exactly one JSON object in this form and '
                                      'nothing else:\n{"name": "python", "arguments": '
                                      '{"code": "print(1)"}}'},
        {'role': 'user', 'content': "Print the left arm pose: robo.pose('left')"}]),
    'python_block': ('smollm2-135m', [
        {'role': 'system', 'content': 'You control a robot through Python. Call the python '
                                      'tool with code.'},
        {'role': 'user', 'content': "Print the robot's left arm pose with "
                                    "print(robo.pose('left'))."}]),
}


@pytest.mark.parametrize('form', sorted(FORMS))
def test_the_client_reads_the_call_the_model_wrote_as_text(form):
    model, messages = FORMS[form]
    require_local_model(model)
    with LocalServer(model, config=BackendConfig(tool_calls='text')) as text_server:
        _check(text_server, form, messages)


def _check(text_server, form, messages):
    tools = [python_tool()]
    with openai.OpenAI(base_url=text_server.base_url, api_key='none') as raw_client:
        for _ in range(2):  # the second reply is made from the KV cache, as the client's is
            raw = raw_client.chat.completions.create(model='local', messages=messages,
                                                     tools=tools, max_tokens=80)
    assert raw.choices[0].message.tool_calls is None  # the server parsed nothing
    written = parse_text_tool_calls(raw.choices[0].message.content, ['python'])
    assert [c.form for c in written.calls] == [form]
    endpoint = EndpointConfig(base_url=text_server.base_url, model='local',
                              max_output_tokens=80, timeout_s=600)
    with ChatClient(endpoint) as client:
        reply = client.complete(messages, tools)
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        (c.name, c.arguments) for c in written.calls]
    assert reply.record.input_tokens == raw.usage.prompt_tokens

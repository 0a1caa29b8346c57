"""The served model, through the real openai client: tool calls, usage, errors, hang-ups."""

import json
import time
import urllib.request

import openai
import pytest

pytestmark = pytest.mark.slow

TOOLS = [{'type': 'function', 'function': {
    'name': 'python', 'description': 'Run Python code on the robot.',
    'parameters': {'type': 'object', 'properties': {'code': {'type': 'string'}},
                   'required': ['code']}}}]
ASK = [{'role': 'system', 'content': 'You control a robot. Call the python tool with code.'},
       {'role': 'user', 'content': "Print the left arm pose: print(robo.pose('left'))"}]


@pytest.fixture
def client(smol_server):
    with openai.OpenAI(base_url=smol_server.base_url, api_key='none', max_retries=0) as c:
        yield c


def _health(server):
    with urllib.request.urlopen(server.base_url[:-3] + '/health', timeout=10) as response:
        return json.loads(response.read())


def test_a_forced_call_comes_back_as_tool_calls_and_usage_counts_the_cache(client):
    first = client.chat.completions.create(model='local', messages=ASK, tools=TOOLS,
                                           tool_choice='required', max_tokens=60)
    choice = first.choices[0]
    assert choice.finish_reason == 'tool_calls'
    (call,) = choice.message.tool_calls
    assert call.function.name == 'python' and call.id.startswith('call_')
    assert first.usage.completion_tokens > 0
    again = client.chat.completions.create(model='local', messages=ASK, tools=TOOLS,
                                           tool_choice='required', max_tokens=60)
    # Same prompt again: everything but the last prompt token comes from the KV cache.
    assert again.usage.prompt_tokens == first.usage.prompt_tokens
    assert again.usage.prompt_tokens_details.cached_tokens == first.usage.prompt_tokens - 1
    assert again.choices[0].message.tool_calls[0].function.arguments == call.function.arguments


def test_errors_are_openai_errors_the_client_understands(client, smol_server):
    with pytest.raises(openai.NotFoundError) as unknown:
        client.chat.completions.create(model='gpt-5', messages=ASK)
    assert unknown.value.code == 'model_not_found' and 'smollm2-135m' in unknown.value.message
    image = {'role': 'user', 'content': [
        {'type': 'text', 'text': 'look'},
        {'type': 'image_url', 'image_url': {'url': 'data:image/png;base64,AAAA'}}]}
    with pytest.raises(openai.BadRequestError, match='reads text only'):
        client.chat.completions.create(model='local', messages=[image])
    huge = [{'role': 'user', 'content': 'robot ' * 9000}]
    with pytest.raises(openai.BadRequestError, match='maximum context length'):
        client.chat.completions.create(model='local', messages=huge)
    assert _health(smol_server)['status'] == 'ok'


def test_a_client_that_hangs_up_stops_the_generation(smol_server):
    before = _health(smol_server)['cancelled']
    with openai.OpenAI(base_url=smol_server.base_url, api_key='none', max_retries=0,
                       timeout=1.0) as impatient:
        with pytest.raises(openai.APITimeoutError):
            impatient.chat.completions.create(
                model='local', max_tokens=4000, temperature=1.0, seed=3,
                messages=[{'role': 'user', 'content': 'Write a very long story.'}])
    deadline = time.monotonic() + 120
    while _health(smol_server)['cancelled'] == before:
        assert time.monotonic() < deadline, 'the abandoned request was never stopped'
        time.sleep(0.2)


def test_a_server_dies_with_the_process_that_started_it(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    from pyrua_local.testing import require_local_model

    require_local_model('smollm2-135m')
    # A parent that starts a server, prints its pid and base URL, then waits to be killed.
    script = ('from pyrua_local import LocalServer\n'
              'import os, sys, time\n'
              "s = LocalServer('local:smollm2-135m'); s.start()\n"
              'print(s._process.pid, flush=True)\n'
              'time.sleep(600)\n')
    parent = subprocess.Popen([sys.executable, '-c', script], stdout=subprocess.PIPE, text=True)
    server_pid = int(parent.stdout.readline())
    parent.send_signal(signal.SIGKILL)  # no clean-up runs in the parent
    parent.wait(timeout=30)
    parent.stdout.close()
    deadline = time.monotonic() + 60
    while True:
        try:
            os.kill(server_pid, 0)
        except ProcessLookupError:
            break
        with open(f'/proc/{server_pid}/stat') as stat:
            if stat.read().split()[2] == 'Z':  # a zombie re-parented to init: it has exited
                break
        assert time.monotonic() < deadline, 'the server outlived the process that started it'
        time.sleep(0.2)


ROBOT_TOOLS = [{'type': 'function', 'function': {
    'name': name, 'description': f'robo.{name}(arm)',
    'parameters': {'type': 'object', 'properties': {'arm': {'type': 'string'}}}}}
    for name in ('pose', 'home')]


def test_a_required_call_names_an_offered_tool_with_a_json_object(client):
    # The task name in the card invites a call to it; the grammar of a forced call
    # (call_grammar.py) allows only the offered names and one JSON object of arguments.
    ask = [{'role': 'system', 'content': 'You control a robot with the tools.'},
           {'role': 'user', 'content': 'Task: pick_place. Call pick_place(block="red").'}]
    reply = client.chat.completions.create(model='local', messages=ask, tools=ROBOT_TOOLS,
                                           tool_choice='required', max_tokens=200)
    assert reply.choices[0].finish_reason == 'tool_calls'
    (call,) = reply.choices[0].message.tool_calls
    assert call.function.name in ('pose', 'home')
    assert isinstance(json.loads(call.function.arguments), dict)
    # Cut at the output limit, the call comes back as it is, and says so.
    cut = client.chat.completions.create(model='local', messages=ask, tools=ROBOT_TOOLS,
                                         tool_choice='required', max_tokens=20)
    assert cut.choices[0].finish_reason == 'length'


def test_allowed_tools_narrow_a_required_call_and_keep_the_prompt(client):
    # OpenAI's allowed_tools choice: the tools list (and so the prompt) stays the request's;
    # only the names the call may pick narrow.
    ask = [{'role': 'system', 'content': 'You control a robot with the tools.'},
           {'role': 'user', 'content': "Print the left arm pose: call pose(arm='left')."}]
    only_home = {'type': 'allowed_tools', 'allowed_tools': {'mode': 'required', 'tools': [
        {'type': 'function', 'function': {'name': 'home'}}]}}
    free = client.chat.completions.create(model='local', messages=ask, tools=ROBOT_TOOLS,
                                          tool_choice='required', max_tokens=60)
    narrowed = client.chat.completions.create(model='local', messages=ask, tools=ROBOT_TOOLS,
                                              tool_choice=only_home, max_tokens=60)
    assert free.choices[0].message.tool_calls[0].function.name == 'pose'  # as asked
    assert narrowed.choices[0].message.tool_calls[0].function.name == 'home'
    assert narrowed.usage.prompt_tokens == free.usage.prompt_tokens
    with pytest.raises(openai.BadRequestError, match="mode 'auto' vs 'required'"):
        client.chat.completions.create(model='local', messages=ask, tools=ROBOT_TOOLS,
                                       tool_choice={'type': 'allowed_tools', 'allowed_tools': {
                                           'mode': 'auto', 'tools': []}})
    with pytest.raises(openai.BadRequestError, match=r"allowed_tools \['move_to'\] vs"):
        client.chat.completions.create(model='local', messages=ask, tools=ROBOT_TOOLS,
                                       tool_choice={'type': 'allowed_tools', 'allowed_tools': {
                                           'mode': 'required', 'tools': [
                                               {'type': 'function',
                                                'function': {'name': 'move_to'}}]}})


def test_the_server_process_gets_every_run_setting_of_its_config():
    from pyrua_local import BackendConfig, LocalServer
    from pyrua_local.cli import add_serve_arguments
    import argparse

    config = BackendConfig(prefix_cache_bytes=0, prompt_lookup=10, threads=1)
    argv = LocalServer('smollm2-135m', config=config).command('/m.gguf')
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    args = parser.parse_args(argv[argv.index('--model'):])
    assert (args.prefix_cache_mb, args.prompt_lookup, args.threads) == (0, 10, 1)
    with pytest.raises(ValueError, match='prompt_lookup -1 vs >= 0'):
        BackendConfig(prompt_lookup=-1)

"""Chat requests to template input, generated text to tool calls."""

import json

import numpy as np
from pyrua_agent.llm.messages import attach_image, user_message
from pyrua_lab.training.chat import parse_hermes, template_messages


def test_parse_hermes_reads_every_tool_call_and_keeps_the_rest_as_content():
    text = ('I will press it.\n<tool_call>\n{"name": "python", "arguments": {"code": '
            '"robo.press(\'red\')\\nprint(1)"}}\n</tool_call><tool_call>{"name": "python", '
            '"arguments": {"code": "x = 1"}}</tool_call>')
    reply = parse_hermes(text)
    assert reply.content == 'I will press it.'
    assert [c.name for c in reply.calls] == ['python', 'python']
    assert json.loads(reply.calls[0].arguments) == {'code': "robo.press('red')\nprint(1)"}


def test_parse_hermes_turns_a_broken_block_into_a_call_the_planner_can_refuse():
    reply = parse_hermes('<tool_call>{"name": "python", "arguments": {"code": </tool_call>')
    assert reply.content is None
    assert reply.calls[0].name == '' and 'arguments' in reply.calls[0].arguments
    assert parse_hermes('just text').calls == ()


def test_template_messages_keep_image_labels_and_drop_pixels():
    image = attach_image('head camera', np.zeros((4, 6, 3), np.uint8))
    messages = [
        {'role': 'system', 'content': 'sys'},
        user_message('task card', [image]),
        {'role': 'assistant', 'content': None, 'tool_calls': [
            {'id': 'c1', 'type': 'function',
             'function': {'name': 'python', 'arguments': '{"code": "print(1)"}'}}]},
        {'role': 'tool', 'tool_call_id': 'c1', 'content': '1'},
    ]
    out = template_messages(messages)
    assert out[1]['content'] == 'task card\n[image: head camera, 6x4]'
    assert 'base64' not in json.dumps(out)
    assert out[2]['tool_calls'][0]['function']['arguments'] == {'code': 'print(1)'}
    assert out[3] == {'role': 'tool', 'content': '1', 'tool_call_id': 'c1'}

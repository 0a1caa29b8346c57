"""Tool calls written as text: every form open models emit, and what is not a call."""

import json

from pyrua_local import parse_text_tool_calls

TOOLS = ['python']


def test_hermes_calls_in_order_with_the_text_around_them():
    text = ('Let me look first.\n<tool_call>\n{"name": "python", "arguments": {"code": '
            '"print(1)"}}\n</tool_call>\n<tool_call>{"name": "python", "arguments": '
            '{"code": "print(2)"}}</tool_call>')
    found = parse_text_tool_calls(text, TOOLS)
    assert [json.loads(c.arguments)['code'] for c in found.calls] == ['print(1)', 'print(2)']
    assert {c.form for c in found.calls} == {'hermes'}
    assert found.text == 'Let me look first.'


def test_hermes_cut_before_its_closing_tag_and_raw_newlines_in_code():
    text = '<tool_call>\n{"name": "python", "arguments": {"code": "x = 1\nprint(x)"}}'
    (call,) = parse_text_tool_calls(text, TOOLS).calls
    assert json.loads(call.arguments) == {'code': 'x = 1\nprint(x)'}


def test_unreadable_hermes_is_kept_as_a_call_for_the_planner_to_answer():
    (call,) = parse_text_tool_calls('<tool_call>{"name": "python", "arguments": {"co',
                                    TOOLS).calls
    assert call.name == 'python' and call.arguments.startswith('{"name"')


def test_a_json_object_alone_or_in_a_json_fence():
    bare = parse_text_tool_calls('{"name": "locate", "arguments": {"query": "cup"}}', ['locate'])
    fenced = parse_text_tool_calls('Sure:\n```json\n{"name": "locate", "parameters": '
                                   '{"query": "cup"}}\n```', ['locate'])
    for found in (bare, fenced):
        (call,) = found.calls
        assert call.name == 'locate' and json.loads(call.arguments) == {'query': 'cup'}
    assert fenced.text == 'Sure:'


def test_python_blocks_only_where_a_python_tool_is_offered():
    text = 'Here is a cell:\n```python\nprint(robo.pose("left"))\n```\nDone.'
    (call,) = parse_text_tool_calls(text, TOOLS).calls
    assert call.form == 'python_block'
    assert json.loads(call.arguments) == {'code': 'print(robo.pose("left"))'}
    assert parse_text_tool_calls(text, ['locate']).calls == ()


def test_an_untagged_fence_counts_only_if_it_compiles():
    good = parse_text_tool_calls('```\nx = 1\nprint(x)\n```', TOOLS)
    prose = parse_text_tool_calls('```\nthe robot moves the block, then\n```', TOOLS)
    assert len(good.calls) == 1 and prose.calls == ()


def test_plain_text_is_no_call():
    found = parse_text_tool_calls('The task is done.', TOOLS)
    assert found.calls == () and found.text == 'The task is done.'

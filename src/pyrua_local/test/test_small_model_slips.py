"""
The slips small models really make, each mended and named, and nothing beyond them guessed.

Each reply below is what Qwen2.5-Coder (0.5B or 1.5B) wrote in a recorded episode of this
project (issue 29's transcripts), trimmed to its first lines of code.
"""

import json

from pyrua_local.tool_text import parse_text_tool_calls, python_blocks
import pytest

# Forced call (tool_choice named), the server's prefill then the model's continuation.
WRAPPED_TWICE = ('<tool_call>\n{"name": "python", "arguments": {"name": "python", "arguments": '
                 '{"code": "block = robo.locate(\'blue block\')\\nprint(block)"}}\n</tool_call>')
# A ```json block whose "code" is a Python triple-quoted string.
TRIPLE_QUOTED = ('```json\n{\n  "name": "python",\n  "arguments": {\n    "code": """\n'
                 'block = robo.locate("blue block")\nprint(block)\n"""\n  }\n}\n```')
# The fence opening prefilled; the model repeats the language on the first line.
LANGUAGE_LINE = '```python\npython\nblock = robo.locate("blue block")\nprint(block)\n```'


def _code(call):
    return json.loads(call.arguments)['code']


def test_arguments_wrapped_twice_with_the_last_brace_missing_are_read():
    (call,) = parse_text_tool_calls(WRAPPED_TWICE, ['python']).calls
    assert call.name == 'python' and set(call.repairs) == {'wrapped', 'brace'}
    assert _code(call) == "block = robo.locate('blue block')\nprint(block)"


def test_a_python_triple_quoted_code_value_in_a_json_block_is_read():
    (call,) = parse_text_tool_calls(TRIPLE_QUOTED, ['python']).calls
    assert call.repairs == ('triple_quotes',)
    assert _code(call) == '\nblock = robo.locate("blue block")\nprint(block)\n'


def test_a_fenced_block_that_repeats_its_language_loses_that_line():
    (call,) = parse_text_tool_calls(LANGUAGE_LINE, ['python']).calls
    assert call.repairs == ('language_line',)
    assert _code(call) == 'block = robo.locate("blue block")\nprint(block)'
    assert python_blocks(LANGUAGE_LINE) == [_code(call)]


def test_a_cut_block_runs_only_when_the_reply_was_not_cut():
    text = '```python\nprint(robo.pose("left"))\nrobo.move_to("left", [0.1,'
    assert python_blocks(text) == ['print(robo.pose("left"))\nrobo.move_to("left", [0.1,']
    assert python_blocks(text, closed_only=True) == []
    assert python_blocks('```python\nprint(1)\n```\n```python\nprint(2', closed_only=True) == [
        'print(1)']


@pytest.mark.parametrize('text', [
    # two braces missing: past the one that is mended
    '<tool_call>\n{"name": "python", "arguments": {"code": "print(1)"\n</tool_call>',
    # wrapped under another tool's name: not the same call repeated
    '<tool_call>\n{"name": "python", "arguments": {"name": "shell", "arguments": '
    '{"code": "ls"}}}\n</tool_call>',
])
def test_what_is_not_one_of_the_known_slips_is_left_as_written(text):
    (call,) = parse_text_tool_calls(text, ['python']).calls
    assert 'wrapped' not in call.repairs and 'brace' not in call.repairs
    try:
        arguments = json.loads(call.arguments)
    except ValueError:
        arguments = None  # left as written: the planner answers it as malformed
    assert arguments is None or 'code' not in arguments  # never read as a python(code) call


def test_native_tool_call_arguments_get_the_same_mending():
    from pyrua_agent.llm import parse_tool_call, python_tool

    tools = [python_tool()]
    wrapped = json.dumps({'name': 'python', 'arguments': {'code': 'print(1)'}})
    assert parse_tool_call('c1', 'python', wrapped, tools).arguments == {'code': 'print(1)'}
    assert parse_tool_call('c2', 'python', '{"code": "print(2)"', tools).arguments == {
        'code': 'print(2)'}
    bad = parse_tool_call('c3', 'python', '{"code": {"x": "print(3)"', tools)
    assert not bad.valid and 'not valid JSON' in bad.reason


# The 0.5B model through the tools interface (heldout run, pick_place seed 2): one call a line.
JSON_LINES = ('{"name": "pose", "arguments": {"arm": "left"}}\n'
              '{"name": "pose", "arguments": {"arm": "right"}}')


def test_json_calls_one_per_line_are_several_calls_in_order():
    found = parse_text_tool_calls(JSON_LINES, ['pose', 'move_to'])
    assert [(c.name, json.loads(c.arguments), c.form) for c in found.calls] == [
        ('pose', {'arm': 'left'}, 'json_lines'), ('pose', {'arm': 'right'}, 'json_lines')]
    # A line that is not a call (here: cut at the output limit) makes none of them a call.
    cut = JSON_LINES + '\n{"name": "pose", "ar'
    assert parse_text_tool_calls(cut, ['pose']).calls == ()

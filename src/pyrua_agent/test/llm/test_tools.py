"""Checking tool calls: model-facing errors for bad JSON, unknown tools and bad arguments."""

from __future__ import annotations

from collections.abc import Sequence
import json
from typing import Literal

from pyrua_agent.llm import (
    function_schema,
    parse_tool_call,
    python_tool,
    system_message,
    tool_result_messages,
    ToolOutput,
    user_message,
)
from pyrua_agent.testing import end_turns, tool_turn


def move_to(arm: Literal['left', 'right'], xyz_m: Sequence[float],
            speed_mps: float = 0.1) -> None:
    """Move the gripper."""


def open_gripper(arm: Literal['left', 'right']) -> None:
    """Open the gripper."""


TOOLS = [function_schema(move_to), function_schema(open_gripper)]


def test_valid_call_decodes_the_arguments():
    result = parse_tool_call('c1', 'move_to', '{"arm": "left", "xyz_m": [0.1, 0.2, 0.3]}', TOOLS)
    assert result.valid
    assert result.reason == ''
    assert result.arguments == {'arm': 'left', 'xyz_m': [0.1, 0.2, 0.3]}


def test_bad_json_says_where_and_what_to_send():
    result = parse_tool_call('c1', 'move_to', '{"arm": "left", "xyz_m": [0.1, 0.2', TOOLS)
    assert not result.valid
    assert "arguments of 'move_to' are not valid JSON" in result.reason
    assert 'at character' in result.reason
    assert 'expected move_to(arm: one of "left", "right", xyz_m: array of number, ' \
           'speed_mps: number = 0.1)' in result.reason


def test_non_object_arguments_are_refused():
    result = parse_tool_call('c1', 'open_gripper', '["left"]', TOOLS)
    assert 'are a JSON list vs an object' in result.reason


def test_unknown_tool_lists_valid_tools_and_suggests_one():
    result = parse_tool_call('c1', 'move_too', '{}', TOOLS)
    assert not result.valid
    assert result.reason.startswith("unknown tool 'move_too'; did you mean 'move_to'?")
    assert "'open_gripper'" in result.reason


def test_missing_extra_and_mistyped_arguments_are_all_reported():
    result = parse_tool_call('c1', 'move_to', json.dumps(
        {'arm': 'middle', 'speed_mps': 'fast', 'xyz': [0, 0, 0]}), TOOLS)
    assert not result.valid
    assert "missing required argument(s) 'xyz_m'" in result.reason
    assert "unknown argument of 'move_to' 'xyz'; did you mean 'xyz_m'?" in result.reason
    assert 'argument \'arm\'="middle" vs one of "left", "right"' in result.reason
    assert 'argument \'speed_mps\'="fast" vs number' in result.reason


def test_booleans_are_not_numbers():
    result = parse_tool_call('c1', 'move_to', '{"arm": "left", "xyz_m": [true, 0, 0]}', TOOLS)
    assert "argument 'xyz_m'=[true, 0, 0] vs array of number" in result.reason


def test_python_tool_takes_one_code_string():
    tools = [python_tool()]
    assert parse_tool_call('c1', 'python', '{"code": "print(1)"}', tools).valid
    assert "missing required argument(s) 'code'" in parse_tool_call(
        'c1', 'python', '{"source": "print(1)"}', tools).reason


def test_malformed_call_from_the_endpoint_is_answered_with_the_error(server, make_client):
    server.reset([tool_turn('move_to', '{"arm": "left", "xyz_m": [0.1,'),
                  tool_turn('mvoe_to', {'arm': 'left'}), *end_turns('giving up')])
    client = make_client()
    history = [system_message('sys'), user_message('move')]
    answers = []
    for _ in range(2):
        reply = client.complete(history, tools=TOOLS)
        (call,) = reply.tool_calls
        result = parse_tool_call(call.call_id, call.name, call.arguments, TOOLS)
        answers.append(result.reason)
        answer = ToolOutput(call.call_id, result.reason)
        history += [reply.message(), *tool_result_messages([answer])]
    final = client.complete(history, tools=TOOLS)
    assert final.content == 'giving up'
    assert 'not valid JSON' in answers[0]
    assert "unknown tool 'mvoe_to'; did you mean 'move_to'?" in answers[1]
    last = server.requests[-1]
    assert last.roles == ['system', 'user', 'assistant', 'tool', 'assistant', 'tool']
    assert last.messages[2]['tool_calls'][0]['function']['arguments'] == \
        '{"arm": "left", "xyz_m": [0.1,'
    assert last.messages[5]['content'] == answers[1]
    assert last.tool_names == ['move_to', 'open_gripper']
    assert client.ledger.totals().llm_calls == 3

"""The tool-calling baseline and its on-request variant over the loopback server."""

import dataclasses
import math

from pyrua_agent.budgets import BudgetConfig
from pyrua_agent.episode import run_episode
from pyrua_agent.llm import function_schema
from pyrua_agent.planners import ToolCallingPlanner
from pyrua_agent.planners.conversation import ALTERNATED, REPEATED
from pyrua_agent.planners.tool_calling import (
    call_code,
    IMAGE_TOOL_DESCRIPTION,
    literal,
    show,
    tool_view,
)
from pyrua_agent.prompt import prompt_text, tools_api_reference
from pyrua_agent.testing import end_turns, ScriptedCall, ScriptedReply, tool_turn
import pytest

PICK_PLACE_CALLS = (
    ('locate', {'query': 'block'}),
    ('move_to', {'arm': 'left', 'xyz': [0.1, 0.0, 0.02]}),
    ('close_gripper', {'arm': 'left'}),
    ('move_to', {'arm': 'left', 'xyz': [0.3, 0.1, 0.1]}),
    ('open_gripper', {'arm': 'left'}),
)


def _run(station, endpoint, images='after_motion', **kwargs):
    planner = ToolCallingPlanner(endpoint, station.primitives(), images=images, **kwargs)
    return run_episode(station.world(), planner), planner


def _expected_tools(station, extra=()):
    """Return the toy station's tools in the planner's order (TOOL_ORDER, then by name)."""
    by_name = {name: function_schema(tool_view(fn, name), name)
               for name, fn in station.primitives().items()}
    by_name['image']['function']['description'] = IMAGE_TOOL_DESCRIPTION
    by_name.update({schema['function']['name']: schema for schema in extra})
    return [by_name[name] for name in ('open_gripper', 'move_to', 'close_gripper', 'locate',
                                       'image', *(s['function']['name'] for s in extra))]


def test_tools_planner_solves_pick_place_with_pictures_after_motions(station, server,
                                                                     endpoint):
    server.extend([tool_turn(name, args) for name, args in PICK_PLACE_CALLS])
    result, planner = _run(station, endpoint)
    assert planner.name == 'tools' and result.planner == 'tools'
    assert result.end_reason == 'solved'
    assert result.cells == 5 and result.ledger.totals().llm_calls == 5
    assert [c[0] for c in station.calls] == [name for name, _ in PICK_PLACE_CALLS]
    requests = server.requests
    after_locate, after_move = requests[1], requests[2]
    assert after_locate.roles == ['system', 'user', 'assistant', 'tool']
    assert after_locate.messages[3]['content'] == '(0.1, 0.0, 0.02)'
    assert after_move.roles[-2:] == ['tool', 'user']
    assert after_move.image_count == 2 * len(station.cameras)
    moved = after_move.messages[5]['content']
    assert moved.startswith('MoveResult(reached, left at (0.100, 0.000, 0.020) m')
    assert '[image 1: head]\n[image 2: left_wrist]' in moved
    totals = result.ledger.totals()
    assert totals.input_tokens == sum(u['prompt_tokens'] for u in server.usages)
    assert totals.images_sent == sum(r.image_count for r in requests)


def test_tool_schemas_and_prompt_come_from_the_primitives(station, server, endpoint):
    server.extend([*end_turns('stop')])
    _run(station, endpoint)
    request = server.requests[0]
    tools = _expected_tools(station)
    assert request.body['tools'] == tools
    assert sorted(t['function']['name'] for t in tools) == sorted(station.primitives())
    move = next(t for t in tools if t['function']['name'] == 'move_to')['function']
    assert move['parameters']['required'] == ['arm', 'xyz']
    assert move['parameters']['properties']['xyz'] == {
        'type': 'array', 'items': {'type': 'number'},
        'description': 'target in metres, station frame.'}
    system = request.messages[0]['content']
    motion = ('move_to', 'open_gripper', 'close_gripper')
    assert tools_api_reference(tools, motion) in system
    assert ('- move_to(arm: string, xyz: array of number, heading: number or null = null): '
            "Move an arm's gripper to a point. [returns the camera pictures]") in system
    assert '- locate(query: string): Find an object on the table by name.\n' in system
    before, after = prompt_text('operating_notes.md').split('$station_facts')
    assert before + '- TOY-FACTS: the table top is at z = 0.' + after in system
    assert prompt_text('notes_tools_auto.md') in system
    assert request.image_count == len(station.cameras)


def test_on_request_variant_adds_show_and_sends_no_automatic_pictures(station, server,
                                                                      endpoint):
    server.extend([tool_turn('move_to', {'arm': 'left', 'xyz': [0.0, 0.0, 0.2]}),
                   tool_turn('show', {'camera': 'left_wrist', 'note': 'gripper'}),
                   *end_turns('stop')])
    result, planner = _run(station, endpoint, images='on_request')
    assert planner.name == 'tools_on_request'
    requests = server.requests
    assert requests[0].body['tools'] == _expected_tools(station, [function_schema(show, 'show')])
    assert prompt_text('notes_tools_on_request.md') in requests[0].messages[0]['content']
    assert '[returns the camera pictures]' not in requests[0].messages[0]['content']
    assert requests[1].roles[-1] == 'tool' and requests[1].image_count == len(station.cameras)
    assert requests[2].roles[-2:] == ['tool', 'user']
    assert requests[2].messages[-2]['content'].startswith('[image 1: left_wrist — gripper]')
    assert requests[2].image_count == len(station.cameras) + 1


def test_image_tool_returns_the_picture(station, server, endpoint):
    server.extend([tool_turn('image', {'camera': 'head'}), *end_turns('stop')])
    _run(station, endpoint, images='on_request')
    second = server.requests[1]
    assert second.messages[3]['content'].startswith('[image 1: head]')
    assert second.image_count == len(station.cameras) + 1


def test_several_tool_calls_run_in_order_and_each_is_answered(station, server, endpoint):
    server.extend([ScriptedReply(calls=(
        ScriptedCall('locate', {'query': 'bowl'}),
        ScriptedCall('move_to', {'arm': 'right', 'xyz': [0.3, 0.1, -0.1]}),
        ScriptedCall('locate', {'query': 'cup'}))), *end_turns('stop')])
    result, _ = _run(station, endpoint, images='on_request')
    assert result.cells == 3
    second = server.requests[1]
    assert second.roles == ['system', 'user', 'assistant', 'tool', 'tool', 'tool']
    answers = [m['content'] for m in second.messages[3:]]
    assert answers[0] == '(0.3, 0.1, 0.0)'
    assert answers[1] == ("MoveResult(reached=False, right, reason='z=-0.100 m is below the "
                          "table; raise z')")
    assert answers[2] == 'None'


def test_invalid_arguments_are_answered_without_running_a_cell(station, server, endpoint):
    server.extend([ScriptedReply(calls=(
        ScriptedCall('move_to', {'arm': 'left', 'xyz': 'up'}),
        ScriptedCall('close_gripper', {}),
        ScriptedCall('open_gripper', {'arm': 'left'}))), *end_turns('stop')])
    result, _ = _run(station, endpoint)
    assert result.cells == 1
    assert [c[0] for c in station.calls] == ['open_gripper']
    answers = [m['content'] for m in server.requests[1].messages[3:6]]
    assert answers[0].startswith("Error: call to 'move_to': argument 'xyz'=\"up\" vs "
                                 'array of number')
    assert "missing required argument(s) 'arm'" in answers[1]
    assert answers[2].startswith('GripperResult(left open')


def test_arguments_become_literals_never_code():
    hostile = "x'); import os; os.system('echo pwned'); ('"
    code = call_code('locate', {'query': hostile})
    assert code == f'print(repr(robo.locate(query={hostile!r})))'
    assert compile(code, '<cell>', 'exec')
    assert literal(float('nan')) == "float('nan')"
    assert literal([1, 2.5, None, True, {'a': 'b'}]) == "[1, 2.5, None, True, {'a': 'b'}]"
    assert call_code('move_to', {'arm': 'left'}, ('head',)) == (
        "print(repr(robo.move_to(arm='left')))\nrobo.show('head')")
    with pytest.raises(ValueError, match='vs a Python identifier'):
        call_code('move_to', {'arm=1)#': 'left'})


def test_tool_view_drops_the_runtime_keywords():
    def slow(arm: str, duration_s: float = 1.0, *, cancel, feedback) -> None:
        """
        Wait.

        :param arm: which arm.
        """

    schema = function_schema(tool_view(slow, 'slow'), 'slow')['function']
    assert list(schema['parameters']['properties']) == ['arm', 'duration_s']
    assert schema['parameters']['properties']['arm']['description'] == 'which arm.'
    assert math.isclose(schema['parameters']['properties']['duration_s']['default'], 1.0)


def test_tools_planner_refuses_primitives_without_image(station, endpoint):
    primitives = station.primitives()
    del primitives['image']
    with pytest.raises(ValueError, match="needs an 'image' primitive"):
        ToolCallingPlanner(endpoint, primitives)
    with pytest.raises(ValueError, match="unknown image mode 'always'"):
        ToolCallingPlanner(endpoint, station.primitives(), images='always')


def test_with_force_every_call_no_call_is_left_to_auto(station, server, endpoint):
    endpoint = dataclasses.replace(endpoint, force_every_call=True)
    server.extend([tool_turn(name, args) for name, args in PICK_PLACE_CALLS[:3]])
    planner = ToolCallingPlanner(endpoint, station.primitives())
    result = run_episode(station.world(), planner, budgets=BudgetConfig(max_llm_calls=3))
    assert result.end_reason == 'call_budget' and result.cells == 3
    assert [r.body['tool_choice'] for r in server.requests] == ['required'] * 3


def test_an_error_is_answered_without_the_frames_of_the_one_line_cell(station, server,
                                                                      endpoint):
    server.extend([tool_turn('close_gripper', {'arm': 'middle'}),
                   *end_turns('stop')])
    result, _ = _run(station, endpoint, images='on_request')
    assert result.cells == 1
    answer = server.requests[1].messages[3]['content']
    assert answer.startswith('Error: KeyError: ') and 'middle' in answer
    assert 'Traceback' not in answer and '<cell' not in answer


def test_a_call_repeated_word_for_word_with_the_same_result_is_told_so(station, server,
                                                                       endpoint):
    below = {'arm': 'right', 'xyz': [0.3, 0.1, -0.1]}
    server.extend([tool_turn('move_to', below), tool_turn('move_to', below),
                   tool_turn('close_gripper', {'arm': 'middle'}),
                   tool_turn('close_gripper', {'arm': 'middle'}),
                   tool_turn('move_to', {'arm': 'right', 'xyz': [0.3, 0.1, 0.1]}),
                   *end_turns('stop')])
    result, _ = _run(station, endpoint, images='on_request')
    assert result.cells == 5
    answers = [m['content'] for m in server.requests[5].messages if m['role'] == 'tool']
    refused = ("MoveResult(reached=False, right, reason='z=-0.100 m is below the table; "
               "raise z')")
    assert answers[0] == refused
    assert answers[1] == refused + REPEATED
    assert answers[2].startswith('Error: KeyError: ') and REPEATED not in answers[2]
    assert answers[3] == answers[2] + REPEATED
    assert answers[4].startswith('MoveResult(reached, right')
    assert 'word for word' in REPEATED and 'change what the error names' in REPEATED


def test_two_calls_alternated_with_the_same_results_are_told_so(station, server, endpoint):
    # Recorded from Qwen2.5-Coder-1.5B (place_on_marker, seed 1): after lifting the block it
    # sent home('left') and home('right') by turns until the call budget ended.
    left, right = ('locate', {'query': 'bowl'}), ('locate', {'query': 'cup'})
    server.extend([tool_turn(*left), tool_turn(*right), tool_turn(*left), tool_turn(*right),
                   tool_turn(*left), *end_turns('stop')])
    result, _ = _run(station, endpoint, images='on_request')
    assert result.cells == 5
    answers = [m['content'] for m in server.requests[5].messages if m['role'] == 'tool']
    assert answers[:3] == ['(0.3, 0.1, 0.0)', 'None', '(0.3, 0.1, 0.0)']  # A, B, A: not yet
    assert answers[3] == 'None' + ALTERNATED
    assert answers[4] == '(0.3, 0.1, 0.0)' + ALTERNATED
    assert REPEATED not in ''.join(answers)


def test_a_malformed_call_sent_again_is_told_it_repeats(station, server, endpoint):
    bad = ('move_to', {'arm': 'left', 'xyz': 'up'})
    server.extend([tool_turn(*bad), tool_turn(*bad), *end_turns('stop')])
    result, _ = _run(station, endpoint, images='on_request')
    assert result.cells == 0
    answers = [m['content'] for m in server.requests[2].messages if m['role'] == 'tool']
    assert answers[0].startswith("Error: call to 'move_to': argument 'xyz'=\"up\"")
    assert answers[1] == answers[0] + REPEATED


def test_the_call_after_a_repeat_is_sampled_where_the_endpoint_says_so(station, server,
                                                                       endpoint):
    below = {'arm': 'right', 'xyz': [0.3, 0.1, -0.1]}
    turns = [tool_turn('move_to', below), tool_turn('move_to', below),
             tool_turn('move_to', {'arm': 'right', 'xyz': [0.3, 0.1, 0.1]}), *end_turns('stop')]
    server.extend(turns)
    _run(station, dataclasses.replace(endpoint, repeat_temperature=0.7), images='on_request')
    sampling = [(r.body.get('temperature'), r.body.get('seed')) for r in server.requests]
    assert sampling[:4] == [(None, None), (None, None), (0.7, 3), (None, None)]
    server.reset()
    server.extend(turns)
    _run(station, endpoint, images='on_request')  # unset: every call as the endpoint says
    assert {(r.body.get('temperature'), r.body.get('seed')) for r in server.requests} == {
        (None, None)}


def test_a_look_sent_again_is_barred_for_the_next_call_where_the_endpoint_says_so(
        station, server, endpoint):
    # Recorded from Qwen2.5-Coder-1.5B (lift_object, seed 1): measure on the one object, 16
    # times running, each told that it repeated.
    look = ('locate', {'query': 'bowl'})
    below = {'arm': 'right', 'xyz': [0.3, 0.1, -0.1]}
    turns = [tool_turn(*look), tool_turn(*look), tool_turn('move_to', below),
             tool_turn('move_to', below), *end_turns('stop')]
    server.extend(turns)
    barring = dataclasses.replace(endpoint, bar_repeated_looks=True)
    _run(station, barring, images='on_request')
    choices = [r.body.get('tool_choice') for r in server.requests]
    assert choices[:2] == ['required', 'auto']
    narrowed = choices[2]
    assert narrowed['type'] == 'allowed_tools' and narrowed['allowed_tools']['mode'] == 'auto'
    allowed = {t['function']['name'] for t in narrowed['allowed_tools']['tools']}
    offered = {t['function']['name'] for t in server.requests[2].body['tools']}
    assert allowed == offered - {'locate'} and 'move_to' in allowed
    assert server.requests[2].body['tools'] == server.requests[1].body['tools']  # same prompt
    assert choices[3:5] == ['auto', 'auto']  # one call only; a refused move sent again is not
    server.reset()
    server.extend(turns)
    _run(station, endpoint, images='on_request')  # unset: every call as the endpoint says
    assert [r.body.get('tool_choice') for r in server.requests][1:5] == ['auto'] * 4

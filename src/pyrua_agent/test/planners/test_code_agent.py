"""The code agent over the real openai client and the loopback server, on the toy station."""

import dataclasses
import json

from pyrua_agent.budgets import BudgetConfig
from pyrua_agent.episode import run_episode
from pyrua_agent.planners import CodeAgentPlanner
from pyrua_agent.planners.code_agent import PYTHON_TOOL_DESCRIPTION
from pyrua_agent.prompt import code_api_reference, prompt_text, task_card_text
from pyrua_agent.testing import (
    code_turn,
    end_turns,
    ScriptedCall,
    ScriptedFault,
    ScriptedReply,
    ScriptedStall,
    text_turn,
    tool_turn,
)
import pytest


def _run(station, endpoint, budgets=None, **kwargs):
    planner = CodeAgentPlanner(endpoint, station.primitives(), **kwargs)
    return run_episode(station.world(), planner, budgets=budgets), planner


def _pick_place_script(station):
    return [code_turn(code) for code in station.pick_place_cells]


def test_code_agent_solves_pick_place_and_accounts_for_every_call(station, server, endpoint):
    server.extend(_pick_place_script(station))
    records = []
    result, planner = _run(station, endpoint, on_call=records.append)
    assert result.end_reason == 'solved' and result.success
    assert result.cells == 4
    totals = result.ledger.totals()
    usages = server.usages
    assert totals.llm_calls == len(usages) == 4
    assert totals.input_tokens == sum(u['prompt_tokens'] for u in usages)
    assert totals.cached_input_tokens == sum(
        u['prompt_tokens_details']['cached_tokens'] for u in usages)
    assert totals.output_tokens == sum(u['completion_tokens'] for u in usages)
    assert [r.input_tokens for r in records] == [u['prompt_tokens'] for u in usages]
    assert totals.cost_usd == pytest.approx(sum(r.cost_usd for r in records))
    assert totals.cost_usd > 0
    assert result.to_dict()['llm_calls'] == 4


def test_code_agent_prompt_carries_reference_notes_and_task_card(station, server, endpoint):
    server.extend([*end_turns('done')])
    _run(station, endpoint)
    request = server.requests[0]
    system, user = request.messages
    assert system['role'] == 'system' and user['role'] == 'user'
    assert code_api_reference(station.primitives()) in system['content']
    assert 'robo.move_to(arm: str, xyz: Sequence[float], heading: float | None = None)' in (
        system['content'])
    assert "robo.show(camera: str, note: str = '')" in system['content']
    before, after = prompt_text('operating_notes.md').split('$station_facts')
    assert before + '- TOY-FACTS: the table top is at z = 0.' + after in system['content']
    assert prompt_text('reply_code_tool.md') in system['content']
    assert prompt_text('notes_code.md').split('$reply_format\n')[1] in system['content']
    assert system['content'].endswith(prompt_text('example_code.md'))
    assert user['content'][0] == {'type': 'text', 'text': task_card_text(station.world().card)}
    labels = [p['text'] for p in user['content'] if p['type'] == 'text'][1:]
    assert labels == [f'[image: {camera} camera, 64x48]' for camera in station.cameras]
    assert request.image_count == len(station.cameras)
    assert request.body['tools'] == [{'type': 'function', 'function': {
        'name': 'python', 'description': PYTHON_TOOL_DESCRIPTION,
        'parameters': {'type': 'object',
                       'properties': {'code': {'type': 'string',
                                               'description': 'Python source code.'}},
                       'required': ['code'], 'additionalProperties': False}}}]
    # The first call must act (the python tool named); later calls choose ('auto').
    assert request.body['tool_choice'] == {'type': 'function', 'function': {'name': 'python'}}
    assert server.requests[1].body['tool_choice'] == 'auto'
    assert request.body['model'] == 'gpt-5-mini'


def test_cell_output_and_shown_images_go_back_in_order(station, server, endpoint):
    server.extend([code_turn("print('before')\nrobo.show('head', 'look')\nprint('after')"),
                   *end_turns('stop')])
    _run(station, endpoint)
    second = server.requests[1]
    assert second.roles == ['system', 'user', 'assistant', 'tool', 'user']
    tool_message, images = second.messages[3], second.messages[4]
    assert tool_message['content'].startswith('before\n[image 1: head — look]\nafter\n')
    assert '1 image(s) follow in the next user message' in tool_message['content']
    assert [p['type'] for p in images['content']] == ['text', 'text', 'image_url']
    assert images['content'][1]['text'] == '[image: image 1: head — look, 64x48]'
    assert second.image_count == len(station.cameras) + 1


def test_images_ride_in_the_tool_message_when_the_endpoint_allows_it(station, server, endpoint):
    server.images_in_tool_messages = True
    endpoint = dataclasses.replace(endpoint, images_in_tool_messages=True)
    server.extend([code_turn("robo.show('left_wrist')"), *end_turns('stop')])
    _run(station, endpoint)
    second = server.requests[1]
    assert second.roles == ['system', 'user', 'assistant', 'tool']
    assert [p['type'] for p in second.messages[3]['content']] == ['text', 'text', 'image_url']


def test_a_text_answer_gets_one_correction_then_gives_up(station, server, endpoint):
    server.extend([*end_turns('I cannot see a block.')])
    result, _ = _run(station, endpoint)
    assert result.end_reason == 'gave_up'
    assert result.end_detail == 'I cannot see a block.'
    # The correction is one more counted call; the second text-only reply ends the episode.
    assert result.cells == 0 and result.ledger.totals().llm_calls == 2
    second = server.requests[1]
    assert second.roles == ['system', 'user', 'assistant', 'user']
    assert second.messages[2]['content'] == 'I cannot see a block.'
    assert 'no python tool call' in second.messages[3]['content']


def test_a_correction_is_sent_again_after_a_valid_call(station, server, endpoint):
    server.extend([text_turn('thinking'), code_turn('print(1)'), *end_turns('done')])
    result, _ = _run(station, endpoint)
    assert result.cells == 1 and result.ledger.totals().llm_calls == 4
    assert 'no python tool call' in server.requests[3].messages[-1]['content']


def test_malformed_calls_are_answered_and_count_but_run_no_cell(station, server, endpoint):
    # Two closing braces missing is past what is mended (one brace, see test_text_tool_calls).
    server.extend([tool_turn('python', '{"code": {"text": "print(1)"'),
                   tool_turn('pyhton', {'code': 'print(2)'}),
                   *end_turns('giving up')])
    result, _ = _run(station, endpoint)
    assert result.cells == 0
    assert result.ledger.totals().llm_calls == 4  # 2 malformed, the text, the corrected text
    bad_json = server.requests[1].messages[3]
    assert bad_json['role'] == 'tool'
    assert bad_json['content'].startswith("Error: arguments of 'python' are not valid JSON")
    unknown = server.requests[2].messages[5]
    assert "unknown tool 'pyhton'; did you mean 'python'?" in unknown['content']


def test_several_python_calls_in_one_reply_run_in_order(station, server, endpoint):
    server.extend([ScriptedReply(calls=(ScriptedCall('python', {'code': 'x = 40'}),
                                        ScriptedCall('python', {'code': 'print(x + 2)'}))),
                   *end_turns('stop')])
    result, _ = _run(station, endpoint)
    assert result.cells == 2
    second = server.requests[1]
    assert second.roles == ['system', 'user', 'assistant', 'tool', 'tool']
    calls = second.messages[2]['tool_calls']
    assert [m['tool_call_id'] for m in second.messages[3:]] == [c['id'] for c in calls]
    assert second.messages[3]['content'] == '[the cell printed nothing]'
    assert second.messages[4]['content'] == '42\n'


def test_call_budget_ends_the_episode_before_the_next_call(station, server, endpoint):
    server.extend([code_turn('print(1)')] * 3)
    result, _ = _run(station, endpoint, budgets=BudgetConfig(max_llm_calls=2))
    assert result.end_reason == 'call_budget'
    assert len(server.requests) == 2 and result.ledger.totals().llm_calls == 2
    assert '2 LLM calls used vs budget 2' in result.end_detail


def test_cell_budget_ends_the_episode(station, server, endpoint):
    server.extend([ScriptedReply(calls=(ScriptedCall('python', {'code': 'print(1)'}),) * 2)])
    result, _ = _run(station, endpoint, budgets=BudgetConfig(max_cells=1))
    assert result.end_reason == 'cell_budget' and result.cells == 1


def test_endpoint_context_refusal_ends_with_context_overflow(station, server, endpoint):
    server.context_tokens = 500
    server.extend([*end_turns('never sent')])
    result, _ = _run(station, endpoint)
    assert result.end_reason == 'context_overflow'
    assert 'refused the prompt as too long' in result.end_detail
    assert result.ledger.totals().llm_calls == 0


def test_budget_context_limit_ends_with_context_overflow(station, server, endpoint):
    server.extend([code_turn('print(1)')])
    result, _ = _run(station, endpoint, budgets=BudgetConfig(max_context_tokens=100))
    assert result.end_reason == 'context_overflow'
    reported = server.usages[0]['prompt_tokens']
    assert result.end_detail == f'{reported} input tokens vs limit 100'
    assert result.cells == 0


def test_server_errors_past_the_retries_end_with_infra_error(station, server, endpoint):
    server.extend([ScriptedFault(503, message='overloaded')] * 3)
    result, _ = _run(station, endpoint)
    assert result.end_reason == 'infra_error'
    assert 'failed 3 attempts vs max_retries=2' in result.end_detail
    totals = result.ledger.totals()
    assert totals.llm_calls == 0 and totals.infra_events == 3


def test_retried_rate_limits_are_not_counted_as_model_calls(station, server, endpoint):
    server.extend([ScriptedFault(429, retry_after_s=0.001), ScriptedFault(500),
                   *end_turns('stop')])
    records = []
    result, planner = _run(station, endpoint, on_call=records.append)
    assert result.end_reason == 'gave_up'
    totals = result.ledger.totals()
    assert totals.llm_calls == 2 and totals.infra_events == 2  # the text, then the correction
    assert records[0].retries == 2 and records[1].retries == 0
    assert planner.ledger.progress().startswith('call 2: ')
    record = result.to_dict()
    assert [e['kind'] for e in record['infra']] == ['rate_limit', 'server_error']
    json.dumps(record)


@pytest.mark.slow
def test_wall_clock_cancels_a_cell_and_ends_the_episode(station, server, endpoint):
    server.extend([code_turn('import time\nwhile True:\n    time.sleep(0.05)')])
    # The clock starts before the worker process does: leave it time to start on a busy host.
    result, _ = _run(station, endpoint, budgets=BudgetConfig(wall_clock_s=3.0))
    assert result.end_reason == 'wall_clock'
    assert result.cell_results[0].stopped_reason == 'episode_cancelled'


def test_planner_can_run_a_second_episode_with_a_fresh_ledger(station, server, endpoint):
    planner = CodeAgentPlanner(endpoint, station.primitives())
    server.extend([*end_turns('one'), *end_turns('two')])
    first = run_episode(station.world(), planner)
    second = run_episode(station.world(), planner)
    assert first.ledger is not second.ledger
    assert second.ledger.totals().llm_calls == 2
    assert server.requests[2].roles == ['system', 'user']


def test_a_timed_out_attempt_is_retried_and_not_counted(station, server, endpoint):
    endpoint = dataclasses.replace(endpoint, timeout_s=1.0)
    server.extend([ScriptedStall(3.0), *end_turns('stop')])
    result, _ = _run(station, endpoint)
    assert result.end_reason == 'gave_up'
    totals = result.ledger.totals()
    assert totals.llm_calls == 2  # the text reply, then the one after the correction
    assert [e.kind for e in result.ledger.infra_events] == ['timeout']

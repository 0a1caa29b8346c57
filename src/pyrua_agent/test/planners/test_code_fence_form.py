"""
The code interface's fenced form and the first call that must act, over the real openai client.

The loopback server is the protocol peer: it sees exactly the request bodies the planner sends
(a prefilled first reply with vLLM's ``continue_final_message``, no tools) and answers with
scripted assistant text.
"""

import dataclasses

from pyrua_agent.episode import run_episode
from pyrua_agent.planners import CodeAgentPlanner, ToolCallingPlanner
from pyrua_agent.planners.code_agent import (
    FENCE_FIRST_ASK,
    FENCE_FIRST_ASK_ALONE,
    FENCE_NEXT_ASK,
    FENCE_OPENING,
    NO_STATEMENTS,
)
from pyrua_agent.planners.conversation import NO_CELL_YET
from pyrua_agent.prompt import prompt_text, PromptVariant
from pyrua_agent.testing import end_turns, text_turn


def _fence(endpoint, **changes):
    return dataclasses.replace(endpoint, **{'call_form': 'fence',
                                            'continues_final_message': True, **changes})


def _run(station, endpoint, **options):
    planner = CodeAgentPlanner(endpoint, station.primitives(), **options)
    return run_episode(station.world(), planner), planner


def test_a_fenced_block_runs_as_a_cell_and_its_output_comes_back_as_text(
        station, server, endpoint):
    # The server continues the prefilled opening: its text starts inside the block.
    server.extend([text_turn('x = 40\nprint(x + 2)\n```'), *end_turns('done')])
    result, planner = _run(station, _fence(endpoint))
    assert result.cells == 1
    first, second = server.requests[:2]
    assert 'tools' not in first.body and 'tool_choice' not in first.body
    assert first.messages[-1] == {'role': 'assistant', 'content': FENCE_OPENING}
    assert first.body['continue_final_message'] is True
    assert first.body['add_generation_prompt'] is False
    assert 'Reply with exactly one ```python block' in first.messages[0]['content']
    # The history holds the whole reply (prefill + continuation), then the cell's output.
    assert second.messages[2] == {'role': 'assistant',
                                  'content': FENCE_OPENING + 'x = 40\nprint(x + 2)\n```'}
    assert second.messages[3] == {'role': 'user',
                                  'content': f'Output of your cell:\n42\n\n{FENCE_NEXT_ASK}'}
    assert 'continue_final_message' not in second.body  # only the first reply is forced


def test_without_asks_the_card_and_the_outputs_end_with_what_the_cells_printed(
        station, server, endpoint):
    # The ablation's variant: the same episode, no ask after the card or after an output.
    server.extend([text_turn('print(40 + 2)\n```'), *end_turns('done')])
    result, planner = _run(station, _fence(endpoint), prompt=PromptVariant(asks=False))
    assert result.cells == 1 and planner.prompt == PromptVariant(asks=False)
    first, second = server.requests[:2]
    assert FENCE_FIRST_ASK not in str(first.messages[1]['content'])
    assert FENCE_FIRST_ASK_ALONE not in str(first.messages[1]['content'])
    assert second.messages[3] == {'role': 'user', 'content': 'Output of your cell:\n42\n'}
    assert prompt_text('example_code.md') in first.messages[0]['content']


def test_without_the_worked_example_the_first_ask_points_at_no_example(
        station, server, endpoint):
    server.extend([text_turn('print(1)\n```'), *end_turns('done')])
    _run(station, _fence(endpoint), prompt=PromptVariant(worked_example=False))
    system, card = server.requests[0].messages[:2]
    assert 'worked example' not in system['content'].lower()
    last = card['content'][-1]['text'] if isinstance(card['content'], list) else card['content']
    assert last.endswith(FENCE_FIRST_ASK_ALONE) and 'example' not in last
    assert server.requests[1].messages[3]['content'].endswith(FENCE_NEXT_ASK)


def test_several_blocks_run_in_order_and_are_answered_in_one_message(
        station, server, endpoint):
    reply = 'y = 1\n```\nThen:\n```python\nprint(y + 1)\n```'
    server.extend([text_turn(reply), *end_turns('done')])
    result, _ = _run(station, _fence(endpoint))
    assert result.cells == 2
    answer = server.requests[1].messages[3]
    assert answer['content'] == ('Output of cell 1 of 2:\n[the cell printed nothing]\n\n'
                                 f'Output of cell 2 of 2:\n2\n\n{FENCE_NEXT_ASK}')


def test_the_task_card_ends_with_the_ask_for_a_first_cell_in_the_fence_form_only(
        station, server, endpoint):
    # A small model follows a message's last words: the card, whose text ends with camera
    # labels, ends with what to reply. The tool form is made to act by its tool_choice.
    server.extend([text_turn('print(1)\n```'), *end_turns('done')])
    _run(station, _fence(endpoint))
    card = server.requests[0].messages[1]['content']
    last = card[-1]['text'] if isinstance(card, list) else card
    assert last.endswith(FENCE_FIRST_ASK)
    server.extend(end_turns('done'))
    sent = len(server.requests)
    _run(station, endpoint)
    assert endpoint.code_form == 'tool'
    card = server.requests[sent].messages[1]['content']
    assert FENCE_FIRST_ASK not in str(card)


def test_a_cell_of_comments_only_is_told_that_nothing_ran(station, server, endpoint):
    server.extend([text_turn('# No changes needed for the robot state.\n```'),
                   text_turn('```python\nx = 1\n```'), *end_turns('done')])
    result, _ = _run(station, _fence(endpoint))
    assert result.cells == 2
    first, second = (server.requests[i].messages[3]['content'] for i in (1, 2))
    assert first == f'Output of your cell:\n{NO_STATEMENTS}\n\n{FENCE_NEXT_ASK}'
    # A cell with statements that prints nothing is told just that.
    assert server.requests[2].messages[5]['content'].startswith(
        'Output of your cell:\n[the cell printed nothing]')
    assert 'nothing ran' not in second


def test_without_a_continuing_endpoint_the_fence_form_is_not_prefilled(
        station, server, endpoint):
    server.extend([text_turn('```python\nprint(7)\n```'), *end_turns('done')])
    result, _ = _run(station, _fence(endpoint, continues_final_message=False))
    assert result.cells == 1
    first = server.requests[0]
    assert first.messages[-1]['role'] == 'user' and 'continue_final_message' not in first.body


def test_a_claim_of_success_before_any_cell_is_told_that_nothing_changed(
        station, server, endpoint):
    server.extend([text_turn('The blue block is in the green bowl.'),
                   *end_turns('The blue block is in the green bowl.')])
    result, _ = _run(station, _fence(endpoint, force_first_action=False))
    assert result.cells == 0 and result.end_reason == 'gave_up'
    correction = server.requests[1].messages[-1]['content']
    assert correction.startswith(NO_CELL_YET)
    assert 'nothing on the robot has changed since the start' in correction
    assert 'no ```python block' in correction
    # Only what the episode did is said: nothing of the evaluator's check.
    assert 'success' not in correction.lower() and 'solved' not in correction.lower()


def test_the_tool_interface_requires_a_tool_call_first(station, server, endpoint):
    server.extend(end_turns('done'))
    planner = ToolCallingPlanner(endpoint, station.primitives())
    run_episode(station.world(), planner)
    assert server.requests[0].body['tool_choice'] == 'required'
    assert server.requests[1].body['tool_choice'] == 'auto'
    off = dataclasses.replace(endpoint, force_first_action=False)
    server.extend(end_turns('done'))
    run_episode(station.world(), ToolCallingPlanner(off, station.primitives()))
    assert server.requests[2].body['tool_choice'] == 'auto'

"""
The worked examples are real: their calls, replayed on the layout they were written on, solve it.

A small model copies the example; an example whose steps did not work, or whose calls the
tool schemas refuse, would teach it a failure. Each example is sent, reply by reply, by the
loopback OpenAI-compatible server (the real ``openai`` client talks to it) to the real
planner on the twin (pick_place, seed 0, layout 5).
"""

import json
import re

from pyrua_agent.episode import open_twin_world, run_episode
from pyrua_agent.llm import EndpointConfig
from pyrua_agent.planners import CodeAgentPlanner, ToolCallingPlanner
from pyrua_agent.prompt import prompt_text
from pyrua_agent.testing import code_turn, end_turns, ScriptedCall, ScriptedReply
import pytest

EXAMPLE_LAYOUT = ('pick_place', 0, 5)


def _tool_replies(text: str) -> list[ScriptedReply]:
    """Return the example's replies: each run of consecutive ``{"name": ...}`` lines is one."""
    replies, calls = [], []
    for line in text.splitlines() + ['']:
        if line.startswith('{"name"'):
            call = json.loads(line)
            calls.append(ScriptedCall(call['name'], call['arguments']))
        elif calls:
            replies.append(ScriptedReply(calls=tuple(calls)))
            calls = []
    return replies


@pytest.fixture
def example_world():
    world, twin = open_twin_world(*EXAMPLE_LAYOUT)
    yield world
    twin.close()


@pytest.fixture
def endpoint(server):
    return EndpointConfig(base_url=server.base_url, model='gpt-5-mini', timeout_s=30.0,
                          max_retries=0)


def test_the_tools_example_replayed_solves_its_layout(server, endpoint, example_world):
    world = example_world
    replies = _tool_replies(prompt_text('example_tools.md'))
    assert [len(reply.calls) for reply in replies] == [2, 8]
    assert world.card.instruction == 'Put the yellow block in the orange bowl.'
    server.extend([*replies, *end_turns()])
    planner = ToolCallingPlanner(endpoint, world.primitives)
    result = run_episode(world, planner)
    assert result.success, result.end_detail
    assert result.end_reason == 'solved'
    # every call of the example was a valid call of the offered tools, and ran
    assert result.cells == 10
    assert len(server.requests) == 2


def test_the_code_example_replayed_solves_its_layout(server, endpoint, example_world):
    world = example_world
    text = prompt_text('example_code.md')
    cell = re.search(r'```python\n(.*?)```', text, re.S).group(1)
    server.extend([code_turn(cell), *end_turns()])
    result = run_episode(world, CodeAgentPlanner(endpoint, world.primitives))
    assert result.success, result.end_detail
    assert result.end_reason == 'solved'
    assert result.cells == 1 and len(server.requests) == 1

"""What an episode tells its author: robo.instruction in a cell, why it failed (issue 24)."""

from pyrua_agent.episode import EpisodeWorld, run_episode
from pyrua_agent.planners.base import TaskCard
from pyrua_agent.planners.percent import parse_percent
from pyrua_agent.planners.script import ScriptPlanner
from pyrua_agent.prompt import code_api_reference


def _script(*cells):
    return ScriptPlanner(parse_percent(''.join(f'# %%\n{c}\n' for c in cells)))


def peek() -> int:
    """Return 7."""
    return 7


def _world(**overrides):
    kwargs = {'task': 'count', 'seed': 0, 'layout': 0,
              'card': TaskCard(task='count', instruction='Put the red block in the blue bowl.',
                               robot_state=''),
              'primitives': {'peek': peek}, 'acting': ()}
    kwargs.update(overrides)
    return EpisodeWorld(**kwargs)


def test_a_cell_reads_the_instruction_as_robo_instruction():
    result = run_episode(_world(), _script(
        "import re\nprint(re.findall(r'the (\\w+ \\w+)', robo.instruction))",
        "print('instruction' in dir(robo), robo.peek())",
        'robo.instruction = 1'))
    first, second, third = result.cell_results
    assert first.output == "['red block', 'blue bowl']\n", first.output
    assert second.output == 'True 7\n'
    assert third.error == 'AttributeError' and 'cannot be assigned' in third.output
    assert len(first.calls) == 0  # a value the worker holds: no call to the host


def test_the_api_reference_documents_robo_instruction():
    text = code_api_reference({'peek': peek})
    assert 'robo.instruction: str\n    The task instruction of this episode' in text
    names = [line.split('(')[0].split(':')[0] for line in text.splitlines()
             if line.startswith('robo.')]
    assert names == ['robo.instruction', 'robo.peek', 'robo.show']

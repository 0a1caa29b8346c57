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


def test_a_failed_twin_episode_says_which_condition_missed_and_what_the_score_counts():
    from pyrua_agent.episode import open_twin_world

    world, twin = open_twin_world('pick_place', 0, 0)
    try:
        result = run_episode(world, _script('print(robo.instruction)'))
    finally:
        twin.close()
    assert result.cell_results[0].output == twin.instruction + '\n'
    assert not result.success and result.end_reason == 'gave_up'
    first, score = result.unmet
    assert first.startswith('blue block: ') and "from the green bowl's axis vs <= 45 mm" in first
    assert score == ('score 0.00 is the highest stage reached, 1.0 only on success; Stages: '
                     'lifted 0.3, over the goal bowl 0.6, in it (not yet released) 0.8.')
    assert result.to_dict()['unmet'] == [first, score]
    assert repr(result).endswith(f's, unmet: {first})')


def test_pyrua_run_prints_why_an_episode_was_not_solved(tmp_path, capsys):
    from pyrua_agent.cli import main

    program = tmp_path / 'look.py'
    program.write_text("# %%\nprint(robo.locate('blue block'))\n")
    status = main(['run', '--task', 'pick_place', '--seed', '0', '--layout', '0',
                   '--script', str(program), '--record', str(tmp_path / 'runs')])
    assert status == 0
    printed = capsys.readouterr().out
    assert 'success: False' in printed
    assert '  not solved: blue block: ' in printed and "green bowl's axis" in printed
    assert '  not solved: score 0.00 is the highest stage reached' in printed

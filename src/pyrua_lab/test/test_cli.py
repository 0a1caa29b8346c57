"""``pyrua`` with the lab installed: its subcommands are the lab's, parsed by pyrua_lab.cli."""

from pyrua_agent.cli import build_parser, main
from pyrua_agent.lab_commands import LAB_COMMANDS
import pyrua_lab.cli
import pytest

MINIMAL_ARGS = {'analyze': ['evals/x'], 'eval': ['spec.yaml', '--out', 'evals/x'],
                'export': ['runs', '--out', 'data/sft'], 'report': ['runs/ep'], 'train': []}


@pytest.mark.parametrize('command', LAB_COMMANDS)
def test_each_lab_command_is_handled_by_pyrua_lab(command):
    args = build_parser().parse_args([command, *MINIMAL_ARGS[command]])
    assert args.handler.__module__ == 'pyrua_lab.cli'
    assert args.handler is getattr(pyrua_lab.cli, f'_{command}')


def test_unknown_arguments_of_a_lab_command_are_refused(capsys):
    with pytest.raises(SystemExit) as exited:
        main(['eval', 'spec.yaml', '--out', 'evals/x', '--wokers', '2'])
    assert exited.value.code == 2
    assert 'unrecognized arguments: --wokers 2' in capsys.readouterr().err


def test_a_lab_command_error_goes_through_pyrua_with_exit_status_2(capsys):
    assert main(['train']) == 2
    assert capsys.readouterr().err == (
        'pyrua train: error: pyrua train needs SPEC.yaml and --out DIR (or --plot RUN)\n')

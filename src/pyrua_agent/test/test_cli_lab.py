"""``pyrua`` where pyrua_lab is not installed: the agent's commands work, the lab's say what to do.

The child interpreter runs without ``site`` (``-S``): the editable-install hooks (``.pth``
files) are not read, so only what its ``PYTHONPATH`` holds is importable: the source folders of
the agent and of what it depends on (not the lab's) and this interpreter's path without any
folder that holds a ``pyrua_lab`` package, as in an agent-only install.
"""

import os
from pathlib import Path
import subprocess
import sys

from pyrua_agent.lab_commands import LAB_COMMANDS

SRC = Path(__file__).resolve().parents[2]
AGENT_ONLY = ('pyrua_agent', 'pyrua_primitives', 'pyrua_sim', 'pyrua_local')


def _without_lab(*args):
    path = [str(SRC / name) for name in AGENT_ONLY] + [
        p for p in sys.path if p and not (Path(p) / 'pyrua_lab').is_dir()]
    return subprocess.run([sys.executable, '-S', *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, 'PYTHONPATH': os.pathsep.join(path)})


def test_the_child_interpreter_has_the_agent_but_not_the_lab():
    done = _without_lab('-c', 'import pyrua_agent.cli; import pyrua_lab')
    assert done.returncode == 1
    assert "No module named 'pyrua_lab'" in done.stderr


def test_a_lab_command_without_the_lab_names_the_pip_command_and_exits_2():
    done = _without_lab('-m', 'pyrua_agent.cli', 'eval', 'spec.yaml', '--out', 'evals/x',
                        '--workers', '2')
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith('pyrua eval: error: this command is part of pyrua_lab')
    assert f'{sys.executable} -m pip install -e {SRC / "pyrua_lab"}\n' in done.stderr
    assert '[ray] for pyrua eval --executor ray, [train] for pyrua train' in done.stderr


def test_help_without_the_lab_lists_every_lab_command_as_needing_it():
    done = _without_lab('-m', 'pyrua_agent.cli', '--help')
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for name in LAB_COMMANDS:
        assert any(line.split()[:1] == [name] and '(needs pyrua_lab)' in line
                   for line in lines), f'{name} missing from:\n{done.stdout}'

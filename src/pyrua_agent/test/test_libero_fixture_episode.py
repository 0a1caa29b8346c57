"""
A LIBERO fixture task (the stove's knob) solved the way a user runs it.

``pyrua run --task libero_goal/7`` ("turn on the stove") with the bundled libero_goal program
and oracle perception, judged by the benchmark's own ``check_success()``.

Needs the LIBERO extra (CI runs it in ``.venv-libero``); skipped elsewhere.
"""

import importlib.util
import json

from pyrua_agent.cli import main
import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec('libero') is None,
                       reason='needs the LIBERO extra: pip install -e src/pyrua_sim[libero]'),
    pytest.mark.filterwarnings('ignore::DeprecationWarning'),
    pytest.mark.filterwarnings('ignore::UserWarning'),
    pytest.mark.filterwarnings('ignore::FutureWarning'),
]


def test_turn_on_the_stove_is_solved_by_the_knob_action(tmp_path, capsys):
    out = tmp_path / 'episode.json'
    status = main(['run', '--task', 'libero_goal/7', '--layout', '0', '--perception', 'oracle',
                   '--json', str(out), '--no-record'])
    assert status == 0
    record = json.loads(out.read_text())
    assert record['success'] is True and record['perception'] == 'oracle'
    printed = capsys.readouterr().out
    assert "[('turn_on', 'stove')]" in printed  # the instruction read as a turn-on step

"""
The README's first command ends ``solved``: a real small model through the code interface.

``pyrua run --task pick_place --planner code --model local --max-calls 6``, as the README
gives it: the embedded default (Qwen2.5-Coder-0.5B, greedy), fenced cells, the first reply
prefilled, the worked example, recorded, sandboxed, the success guard on. Nothing is added
for the test but a JSON record (and a fresh prefix-state folder, so the first call is cold).
``pick_place`` is the task the worked example shows, on another layout than the example's,
so this pins the path and that the model can follow it; unseen tasks are measured in the
README, not asserted here. About 2-4 minutes on 2 cores.
"""

import json

from pyrua_agent.cli import main
from pyrua_local.testing import require_local_model
import pytest

pytestmark = pytest.mark.slow
README_FIRST_COMMAND = ['run', '--task', 'pick_place', '--planner', 'code', '--model', 'local',
                        '--max-calls', '6']


def test_the_readme_first_command_solves_pick_place(tmp_path, monkeypatch):
    require_local_model('local')
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    monkeypatch.setenv('PYRUA_PREFIX_CACHE', str(tmp_path / 'prefix'))  # a cold first call
    status = main([*README_FIRST_COMMAND, '--json', 'episode.json'])
    assert status == 0
    record = json.loads((tmp_path / 'episode.json').read_text())
    assert record['end_reason'] == 'solved', (record['end_reason'], record['end_detail'])
    assert record['success'] is True and record['cells'] >= 1
    # The state after the system prompt was written once for the next run to load.
    assert list((tmp_path / 'prefix').rglob('*.llama-state'))

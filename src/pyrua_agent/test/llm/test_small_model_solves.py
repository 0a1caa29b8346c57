"""
A real small model solves a task through the code interface, from the README's command.

Qwen2.5-Coder-0.5B (greedy) is the smallest local model that does: through the defaults a
user gets with ``--model local:...`` (fenced cells, the first reply prefilled, the worked
example), recorded, sandboxed, the success guard on. Nothing is added for the test but the
model's name and a JSON record. ``pick_place`` is the task the worked example shows, on
another seed than the example's, so this pins the path and that the model can follow it;
unseen tasks are measured in the README, not asserted here. About 2-4 minutes on 2 cores.
"""

import json

from pyrua_agent.cli import main
from pyrua_local.testing import require_local_model
import pytest

pytestmark = pytest.mark.slow
MODEL = 'local:qwen2.5-coder-0.5b'


def test_the_0_5b_model_solves_pick_place_through_fenced_cells(tmp_path, monkeypatch):
    require_local_model('qwen2.5-coder-0.5b')
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    monkeypatch.setenv('PYRUA_PREFIX_CACHE', str(tmp_path / 'prefix'))  # a cold first call
    status = main(['run', '--task', 'pick_place', '--seed', '1', '--planner', 'code',
                   '--model', MODEL, '--max-calls', '6', '--json', 'episode.json'])
    assert status == 0
    record = json.loads((tmp_path / 'episode.json').read_text())
    assert record['end_reason'] == 'solved', (record['end_reason'], record['end_detail'])
    assert record['success'] is True and record['cells'] >= 1
    # The state after the system prompt was written once for the next run to load.
    assert list((tmp_path / 'prefix').rglob('*.llama-state'))

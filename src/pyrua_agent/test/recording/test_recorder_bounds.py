"""The recorder never raises into an episode and stays inside its budget (issue 22)."""

import json
import time

import numpy as np
from pyrua_agent.planners.base import Cell
from pyrua_agent.recording import read_bag, read_transcript, Recorder
from pyrua_agent.recording.budget import RecordingBudget
from pyrua_agent.recording.convert import plain
from pyrua_agent.runtime.results import CellResult, ImageObservation, PrimitiveCall
import pytest


class BadRepr:
    """A value whose repr raises, as a forged result can."""

    def __repr__(self) -> str:
        raise ValueError('no repr for you')


def _cell_result(index, calls=(), output='ok\n', images=()):
    return CellResult(index=index, output=output, images=images, error=None,
                      stopped_reason=None, duration_s=0.1, namespace_lost=False,
                      calls=tuple(calls))


def test_values_the_bag_cannot_encode_are_recorded_as_json_and_never_raise(tmp_path):
    with Recorder(tmp_path / 'run') as recorder:
        # A 2-D xyz ("memoryview assignment") and an int64-overflowing step count
        # (struct.error) in the typed goals; a result whose repr raises.
        bad_xyz = recorder.primitive_goal('move_to', (), {'arm': 'left',
                                                          'xyz': np.zeros((3, 3))})
        recorder.primitive_result(bad_xyz, BadRepr(), duration_s=0.0)
        steps = recorder.primitive_goal('vla', (), {'instruction': 'pick', 'arm': 'left',
                                                    'steps': 2 ** 70})
        recorder.primitive_result(steps, None, duration_s=0.0, error='x' * 10_000)
        started = time.monotonic()
        for _ in range(20):
            recorder.primitive_goal('move_to', (), {'arm': 'left',
                                                    'xyz': np.zeros((3_000_000, 0))})
        assert time.monotonic() - started < 2  # never expanded by rows
        recorder.cell(Cell(code='robo.move_to(...)'), _cell_result(
            1, calls=[PrimitiveCall('move_to', (BadRepr(),), {'x': BadRepr()}, 'err', 0.0, 0.0)]))
        state = recorder.recording_state()
    recording = read_bag(tmp_path / 'run')
    goals = recording.goals
    assert goals[0]['kwargs']['xyz'] == [[0.0] * 3] * 3
    assert goals[1]['kwargs']['steps'] == 2 ** 70
    assert goals[2]['kwargs']['xyz'] == {'ndarray': {'shape': [3000000, 0], 'dtype': 'float64'}}
    first, second = recording.results[:2]
    assert first['result_repr'] == '<BadRepr whose repr failed: ValueError>'
    assert second['error'].startswith('x' * 2000) and 'characters cut: over 2000' in \
        second['error']
    assert state['failures'] >= 1 and not state['truncated']
    cell = read_transcript(tmp_path / 'run').cells[0]
    assert cell.calls[0]['args'] == ['<BadRepr whose repr failed: ValueError>']


def test_a_hook_that_fails_is_counted_in_the_end_record_and_the_episode_goes_on(tmp_path):
    with Recorder(tmp_path / 'run') as recorder:
        # An image note that no image message can hold: the hook fails, nothing raises.
        broken = ImageObservation(camera='head', note='n', pixels=np.zeros((2, 2), np.uint8),
                                  index=1, offset=0)
        assert recorder.cell(Cell(code='x'), _cell_result(1, images=(broken,))) is None
        recorder.cell(Cell(code='y'), _cell_result(2))
        assert recorder.recording_state()['failures'] == 1
        assert recorder.recording_state()['first_failures'][0].startswith('cell: ')
    assert [c.index for c in read_transcript(tmp_path / 'run').cells] == [2]


def test_large_arguments_are_summaries_in_bag_and_transcript(tmp_path):
    text = 'q' * 1_000_000
    with Recorder(tmp_path / 'run') as recorder:
        for _ in range(50):
            goal = recorder.primitive_goal('locate', (), {'query': text})
            recorder.primitive_result(goal, None, duration_s=0.0,
                                      error=f"ValueError: query {text!r} is not '<colour> <noun>'")
        recorder.cell(Cell(code='loop'), _cell_result(
            1, calls=[PrimitiveCall('locate', (text,), {}, 'ValueError: ' + text[:500], 0, 0)]))
    bag = (tmp_path / 'run' / 'bag' / 'bag.mcap').stat().st_size
    transcript = (tmp_path / 'run' / 'transcript.jsonl').stat().st_size
    # Before: 197 MB of bag and 48 MB of transcript for the same calls.
    assert bag < 2_000_000 and transcript < 100_000, (bag, transcript)
    goal = read_bag(tmp_path / 'run').goals[0]
    assert goal['kwargs']['query'] == '<str of 1000000 items: over 4096 bytes, not recorded>'


def test_past_the_budget_only_summaries_are_written_and_the_end_says_so(tmp_path):
    budget = RecordingBudget(bag_bytes=200_000, transcript_bytes=20_000)
    with Recorder(tmp_path / 'run', budget=budget) as recorder:
        for k in range(1, 201):
            recorder.cell(Cell(code=f'print({k})\n' + '#' * 1500),
                          _cell_result(k, output=f'{k}\n' + '.' * 1500))
        state = recorder.recording_state()
    assert state['bag_truncated'] and state['transcript_truncated'] and state['truncated']
    bag = (tmp_path / 'run' / 'bag' / 'bag.mcap').stat().st_size
    transcript = read_transcript(tmp_path / 'run')
    # Every cell is still there (summarised), and the sizes stay near the budget.
    assert [c.index for c in transcript.cells] == list(range(1, 201))
    assert bag < 200_000 + 200 * 2_000
    last = transcript.records[-1]
    assert last['truncated'] is True and len(last['code']) < 300
    assert (tmp_path / 'run' / 'transcript.jsonl').stat().st_size < 20_000 + 200 * 1_000
    cells = read_bag(tmp_path / 'run').cells
    assert len(cells) == 200 and cells[0].get('truncated') is None
    assert cells[-1]['truncated'] is True and len(cells[-1]['output']) < 300


def test_the_recording_state_is_plain_json_with_sizes_and_budgets(tmp_path):
    with Recorder(tmp_path / 'run') as recorder:
        recorder.cell(Cell(code='x'), _cell_result(1))
        state = recorder.recording_state()
    assert state['bag_bytes'] > 0 and state['transcript_bytes'] > 0
    assert state['bag_budget_bytes'] == RecordingBudget().bag_bytes == 1024 ** 3
    assert json.loads(json.dumps(plain(state))) == state


def test_recording_budget_refuses_values_below_its_minimum():
    with pytest.raises(ValueError, match=r'RecordingBudget.bag_bytes=10 vs minimum 1024'):
        RecordingBudget(bag_bytes=10)

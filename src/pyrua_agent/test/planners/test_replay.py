"""The replay planner: recorded cells and tool calls run again through the episode loop."""

import json

from pyrua_agent.episode import run_episode
from pyrua_agent.planners import make_planner, ReplayPlanner
from pyrua_agent.planners.replay import read_transcript
import pytest


def _write(path, records):
    path.write_text('\n'.join(json.dumps(r) for r in records) + '\n', encoding='utf-8')
    return path


def test_replay_of_recorded_code_cells_solves_again(station, tmp_path):
    records = [{'kind': 'llm_call', 'input_tokens': 10}]
    records += [{'kind': 'cell', 'code': code, 'label': f'c{i}'}
                for i, code in enumerate(station.pick_place_cells)]
    path = _write(tmp_path / 'episode.jsonl', records)
    planner = make_planner('replay', source=path)
    result = run_episode(station.world(), planner)
    assert result.planner == 'replay'
    assert result.end_reason == 'solved' and result.cells == 4
    assert result.to_dict()['llm_calls'] == 0


def test_replay_turns_tool_calls_into_one_call_cells(station, tmp_path):
    path = _write(tmp_path / 'tools.jsonl', [
        {'kind': 'tool_call', 'name': 'move_to', 'arguments': {'arm': 'left', 'xyz': [0, 0, 0.2]}},
        {'kind': 'tool_call', 'name': 'python', 'arguments': {'code': 'print(41 + 1)'}},
        {'kind': 'note', 'text': 'skipped'},
    ])
    cells = read_transcript(path)
    assert [c.code for c in cells] == [
        "print(repr(robo.move_to(arm='left', xyz=[0, 0, 0.2])))", 'print(41 + 1)']
    assert [c.line for c in cells] == [1, 2]
    result = run_episode(station.world(), ReplayPlanner(cells, source=str(path)))
    assert result.end_reason == 'gave_up'
    assert result.cell_results[1].output == '42\n'
    assert station.tcp['left'] == [0.0, 0.0, 0.2]


def test_replay_from_a_list_of_codes(station):
    planner = ReplayPlanner.from_codes(["print('a')", "print('b')"])
    result = run_episode(station.world(), planner)
    assert [r.output for r in result.cell_results] == ['a\n', 'b\n']
    assert repr(planner) == "ReplayPlanner('<codes>', cell 2/2)"


def test_replay_refuses_broken_transcripts(tmp_path):
    bad = tmp_path / 'bad.jsonl'
    bad.write_text('{"kind": "cell", "code": "x"}\nnot json\n', encoding='utf-8')
    with pytest.raises(ValueError, match=r'bad.jsonl:2 is not JSON'):
        read_transcript(bad)
    empty = _write(tmp_path / 'empty.jsonl', [{'kind': 'llm_call'}])
    with pytest.raises(ValueError, match="has no records of kind \\('cell', 'tool_call'\\)"):
        read_transcript(empty)
    missing = _write(tmp_path / 'missing.jsonl', [{'kind': 'cell'}])
    with pytest.raises(ValueError, match='missing.jsonl:1: cell record has code None'):
        read_transcript(missing)
    with pytest.raises(FileNotFoundError, match='does not exist'):
        read_transcript(tmp_path / 'nope.jsonl')

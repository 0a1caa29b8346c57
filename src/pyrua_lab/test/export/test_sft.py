"""`pyrua export --format sft`: episodes recorded by `pyrua run` on the twin, read back."""

import json

from pyrua_agent.cli import main
from pyrua_agent.episode import bundled_program
from pyrua_agent.planners.percent import read_percent_file
from pyrua_agent.recording import read_transcript
from pyrua_agent.testing import code_turn, end_turns, LoopbackLLMServer
from pyrua_lab.export import read_sft
import pytest

INSTRUCTION = 'Put the blue block in the green bowl.'


def _calls(messages):
    return [json.loads(c['function']['arguments'])['code']
            for m in messages if m['role'] == 'assistant' for c in m.get('tool_calls') or ()]


def _texts(content):
    if isinstance(content, str):
        return [content]
    return [p['text'] for p in content if p['type'] == 'text']


def _record_code_episode(tmp_path, monkeypatch):
    """Run the code planner as a user would against a loopback model; return its requests."""
    cells = [cell.code for cell in read_percent_file(bundled_program('pick_place'))]
    turns = [code_turn(f'instruction = {INSTRUCTION!r}')] + [code_turn(c) for c in cells]
    monkeypatch.chdir(tmp_path)
    with LoopbackLLMServer([*turns, *end_turns('Done.')]) as server:
        assert main(['run', '--task', 'pick_place', '--planner', 'code', '--base-url',
                     server.base_url, '--model', 'loopback', '--record', 'runs/code']) == 0
        return list(server.requests)


@pytest.mark.slow
def test_recorded_episodes_of_any_planner_round_trip_as_sft_samples(tmp_path, monkeypatch,
                                                                    capsys):
    requests = _record_code_episode(tmp_path, monkeypatch)
    for layout in (0, 1):  # the bundled program, as `pyrua run` records it by default
        assert main(['run', '--task', 'pick_place', '--layout', str(layout),
                     '--record', 'runs/script']) == 0
    assert main(['export', 'runs', '--format', 'sft', '--out', 'data']) == 0
    assert 'ExportSummary(data: 3 episodes, 0 skipped' in capsys.readouterr().out

    samples = read_sft(tmp_path / 'data')
    code, *scripted = sorted(samples, key=lambda s: (s['meta']['planner'], s['meta']['layout']))
    assert code['meta']['planner'] == 'code' and code['meta']['messages_from'] == 'recording'
    assert [s['meta']['layout'] for s in scripted] == [0, 1]
    sent = requests[-1].body['messages']  # the history up to the model's last reply
    recorded = read_transcript(code['meta']['run'])
    assert _calls(code['messages']) == [cell.code for cell in recorded.cells]
    assert _calls(code['messages'])[:-1] == _calls(sent)
    assert code['messages'][-1] == {'role': 'tool', 'tool_call_id': recorded.cells[-1].label,
                                    'content': recorded.cells[-1].output}, \
        'the last call, never answered to the model, is answered from its cell'
    assert [m['role'] for m in code['messages'][:len(sent)]] == [m['role'] for m in sent]
    assert [_texts(m.get('content') or '') for m in code['messages'][:len(sent)]] == [
        _texts(m.get('content') or '') for m in sent]
    system, card = sent[0]['content'], _texts(sent[1]['content'])

    for sample in scripted:
        meta = sample['meta']
        assert meta['messages_from'] == 'cells' and meta['end_reason'] == 'solved'
        transcript = read_transcript(meta['run'])
        messages = sample['messages']
        assert messages[0] == {'role': 'system', 'content': system}, \
            'rebuilt system prompt = what the code agent is sent'
        if meta['layout'] == 0:
            assert _texts(messages[1]['content']) == card
        assert _calls(messages) == [cell.code for cell in transcript.cells]
        answers = [m for m in messages if m['role'] == 'tool']
        assert [_texts(m['content'])[0] for m in answers] == [
            cell.output or '[the cell printed nothing]' for cell in transcript.cells]
        assert sample['tools'][0]['function']['name'] == 'python'
        images = [p for p in messages[1]['content'] if p['type'] == 'image']
        assert [p['path'].rsplit('/', 1)[1] for p in images] == [
            item['file'].rsplit('/', 1)[1] for item in transcript.header['images']]
        for part, item in zip(images, transcript.header['images'], strict=True):
            copied = (tmp_path / 'data' / part['path']).read_bytes()
            assert copied == (transcript.path.parent / item['file']).read_bytes()

    assert main(['export', 'runs', '--out', 'data']) == 2
    assert 'sft.jsonl exists vs a fresh export' in capsys.readouterr().err
    assert main(['export', 'nowhere', '--out', 'other']) == 2
    assert 'nowhere does not exist' in capsys.readouterr().err

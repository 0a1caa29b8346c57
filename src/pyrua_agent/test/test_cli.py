"""The ``pyrua`` command end to end on the twin: script and code-agent episodes, view, report."""

import json

from pyrua_agent.cli import bundled_program, main
from pyrua_agent.planners.percent import read_percent_file
from pyrua_agent.testing import code_turn, LoopbackLLMServer, text_turn
import pytest


def test_unknown_task_is_refused_with_a_suggestion(capsys):
    assert main(['run', '--task', 'pick_plaice', '--no-record']) == 2
    err = capsys.readouterr().err
    assert "did you mean 'pick_place'" in err


def test_missing_bundled_program_lists_the_bundled_ones():
    with pytest.raises(FileNotFoundError, match='bundled: .*pick_place'):
        bundled_program('no_such_task')


@pytest.mark.slow
def test_script_episode_writes_json_recording_and_report(tmp_path, capsys):
    out = tmp_path / 'episode.json'
    status = main(['run', '--task', 'pick_place', '--seed', '0', '--layout', '0',
                   '--json', str(out), '--record', str(tmp_path / 'runs')])
    assert status == 0
    record = json.loads(out.read_text())
    assert record['end_reason'] == 'solved' and record['success'] is True
    assert record['llm_calls'] == 0 and record['cost_usd'] == 0
    printed = capsys.readouterr().out
    assert 'end reason: solved' in printed and '--- cell 1' in printed
    (run_dir,) = (tmp_path / 'runs').iterdir()
    assert (run_dir / 'bag' / 'metadata.yaml').is_file()
    assert (run_dir / 'transcript.jsonl').is_file()
    assert main(['report', str(run_dir)]) == 0
    assert '<html' in (run_dir / 'report.html').read_text()[:200].lower()


@pytest.mark.slow
def test_code_agent_episode_through_an_openai_compatible_server(tmp_path, capsys, monkeypatch):
    cells = [cell.code for cell in read_percent_file(bundled_program('pick_place'))]
    turns = [code_turn('instruction = ' + repr('Put the blue block in the green bowl.'))]
    turns += [code_turn(code) for code in cells] + [text_turn('Done.')]
    with LoopbackLLMServer(turns) as server:
        out = tmp_path / 'episode.json'
        status = main(['run', '--task', 'pick_place', '--seed', '0', '--planner', 'code',
                       '--base-url', server.base_url, '--model', 'loopback-model',
                       '--json', str(out), '--no-record'])
        requests = list(server.requests)
    assert status == 0
    record = json.loads(out.read_text())
    assert record['planner'] == 'code' and record['end_reason'] == 'solved'
    assert record['llm_calls'] == len(requests) >= 2
    assert record['input_tokens'] == sum(u['prompt_tokens'] for u in server.usages)
    system = requests[0].body['messages'][0]['content']
    assert 'robo.locate' in system and 'move_to' in system
    assert '[llm]' in capsys.readouterr().out


def test_view_writes_the_three_camera_images_and_a_sheet(tmp_path):
    assert main(['view', '--task', 'handover', '--layouts', '1', '--out', str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        'handover_s0_i01_head.png', 'handover_s0_i01_left_wrist.png',
        'handover_s0_i01_right_wrist.png']
    assert main(['view', '--task', 'handover', '--layouts', '0-1', '--sheet',
                 '--out', str(tmp_path / 'sheet')]) == 0
    assert (tmp_path / 'sheet' / 'handover_s0_sheet.png').stat().st_size > 10_000


def test_shown_images_are_written_where_asked(tmp_path, capsys):
    script = tmp_path / 'look.py'
    script.write_text('# %%\nrobo.show("head", note="look")\nrobo.show("left_wrist")\n')
    status = main(['run', '--task', 'pick_place', '--layout', '5', '--script', str(script),
                   '--images', str(tmp_path / 'shown'), '--no-record'])
    assert status == 0
    assert sorted(p.name for p in (tmp_path / 'shown').iterdir()) == [
        'cell01_img1_head.png', 'cell01_img2_left_wrist.png']
    assert '[image 1: head — look]' in capsys.readouterr().out

"""The ``pyrua`` command end to end on the twin: script and code-agent episodes, view, report."""

import json

from pyrua_agent.cli import main
from pyrua_agent.episode import bundled_program
from pyrua_agent.planners.percent import read_percent_file
from pyrua_agent.recording import read_bag, read_transcript
from pyrua_agent.testing import code_turn, end_turns, LoopbackLLMServer, tool_turn
import pytest


def test_unknown_task_is_refused_with_a_suggestion(capsys):
    assert main(['run', '--task', 'pick_plaice', '--no-record']) == 2
    err = capsys.readouterr().err
    assert "did you mean 'pick_place'" in err


def test_tasks_lists_the_built_in_tasks_and_the_benchmark_suites(capsys):
    assert main(['tasks']) == 0
    out = capsys.readouterr().out
    assert 'pick_place' in out and 'libero_spatial' in out and 'libero_goal_swap' in out
    assert 'pip install -e src/pyrua_sim[libero]' in out


def test_unknown_benchmark_suite_is_refused_with_a_suggestion(capsys):
    assert main(['run', '--task', 'libero_spatail/3', '--no-record']) == 2
    assert "did you mean 'libero_spatial'" in capsys.readouterr().err


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


def _llm_run(tmp_path, monkeypatch, planner, turns):
    """Run ``pyrua run`` as a user would (recording on, the default) against a loopback."""
    monkeypatch.chdir(tmp_path)
    with LoopbackLLMServer(turns) as server:
        status = main(['run', '--task', 'pick_place', '--seed', '0', '--planner', planner,
                       '--base-url', server.base_url, '--model', 'loopback-model',
                       '--json', 'episode.json'])
        requests = list(server.requests)
        usages = list(server.usages)
    assert status == 0
    record = json.loads((tmp_path / 'episode.json').read_text())
    (run_dir,) = (tmp_path / 'runs').iterdir()
    assert record['run_dir'] == str(run_dir.relative_to(tmp_path))
    return record, requests, usages, run_dir


@pytest.mark.slow
def test_code_agent_episode_is_recorded_through_an_openai_compatible_server(
        tmp_path, capsys, monkeypatch):
    cells = [cell.code for cell in read_percent_file(bundled_program('pick_place'))]
    turns = [code_turn('instruction = ' + repr('Put the blue block in the green bowl.'))]
    turns += [code_turn(code) for code in cells] + [*end_turns('Done.')]
    record, requests, usages, run_dir = _llm_run(tmp_path, monkeypatch, 'code', turns)
    assert record['planner'] == 'code' and record['end_reason'] == 'solved'
    assert record['llm_calls'] == len(requests) >= 2
    assert record['input_tokens'] == sum(u['prompt_tokens'] for u in usages)
    system = requests[0].body['messages'][0]['content']
    assert 'robo.locate' in system and 'move_to' in system
    printed = capsys.readouterr().out
    assert '[llm]' in printed and f'recording: {record["run_dir"]}/' in printed
    transcript = read_transcript(run_dir)
    assert len(transcript.llm_calls) == record['llm_calls']
    topics = set(read_bag(run_dir).topic_counts)
    assert {'/pyrua/llm/call', '/pyrua/primitive/move_to/goal',
            '/pyrua/camera/head/image_raw', '/tf', '/joint_states'} <= topics


@pytest.mark.slow
@pytest.mark.parametrize('planner', ['tools', 'tools_on_request'])
def test_tool_calling_episode_is_recorded_through_an_openai_compatible_server(
        tmp_path, monkeypatch, planner):
    turns = [tool_turn('locate', {'query': 'blue block'}),
             tool_turn('move_to', {'arm': 'left', 'xyz': [-0.1, 0.1, 0.2]}),
             *end_turns('I stop here.')]
    record, requests, _usages, run_dir = _llm_run(tmp_path, monkeypatch, planner, turns)
    assert record['planner'] == planner and record['end_reason'] == 'gave_up'
    assert record['llm_calls'] == len(requests) == 4 and record['cells'] == 2
    transcript = read_transcript(run_dir)
    assert len(transcript.llm_calls) == 4
    topics = set(read_bag(run_dir).topic_counts)
    assert {'/pyrua/llm/call', '/pyrua/primitive/locate/goal',
            '/pyrua/primitive/move_to/result'} <= topics


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

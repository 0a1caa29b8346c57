"""Record toy episodes and read the bag back with independent readers (rosbags and mcap)."""

from collections import Counter
import json

from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
import numpy as np
from pyrua_agent.episode import run_recorded_episode
from pyrua_agent.planners.percent import parse_percent
from pyrua_agent.planners.script import ScriptPlanner
from pyrua_agent.recording import (
    EpisodeObserver,
    read_bag,
    read_cells,
    read_transcript,
    RecordedChatClient,
    Recorder,
    topics,
)
from pyrua_agent.recording.bag_repair import find_mcap
from pyrua_agent.recording.run_dir import default_run_dir
from pyrua_agent.testing import code_turn, end_turns
import pytest
from rosbags.highlevel import AnyReader

CELLS = (
    "robo.show('head', 'the table')\nprint('looked')",
    "print(robo.move_to('left', (0.1, 0.2, 0.3)))",
    "print(robo.move_to(arm='left', xyz=(0.1, 0.2, 0.35)))",
    "print('never runs: the task is solved')",
)


def _record_script_episode(run_dir, toy):
    recorder = Recorder(run_dir)
    world = toy.Station(recorder).world()
    planner = ScriptPlanner(parse_percent(''.join(f'# %%\n{c}\n' for c in CELLS)))
    seen = []
    result = run_recorded_episode(world, planner, recorder,
                                  config={'budgets': {'max_cells': 10}},
                                  on_cell=lambda cell, result: seen.append(result.index))
    assert seen == [1, 2, 3] and recorder.bag.closed
    return result


@pytest.fixture(scope='module')
def script_run(tmp_path_factory, toy):
    run_dir = tmp_path_factory.mktemp('runs') / 'episode'
    result = _record_script_episode(run_dir, toy)
    return run_dir, result


def test_recorded_bag_has_every_channel_with_its_type_and_count(script_run):
    run_dir, result = script_run
    assert result.end_reason == 'solved' and result.cells == 3
    with AnyReader([run_dir / 'bag']) as reader:
        types = {c.topic: c.msgtype for c in reader.connections}
        counts = Counter()
        for connection, _, raw in reader.messages(connections=reader.connections):
            counts[connection.topic] += 1
            message = reader.deserialize(raw, connection.msgtype)
            if topics.is_json_topic(connection.topic):
                assert isinstance(json.loads(message.data)['cell'], int)
    head = topics.camera_image('head')
    assert types[head] == 'sensor_msgs/msg/Image'
    assert types[topics.camera_info('head')] == 'sensor_msgs/msg/CameraInfo'
    assert types[topics.JOINT_STATES] == 'sensor_msgs/msg/JointState'
    assert types[topics.TF] == 'tf2_msgs/msg/TFMessage'
    assert types[topics.primitive_goal('move_to')] == 'pyrua_msgs/action/MoveTo_Goal'
    assert types[topics.primitive_result('move_to')] == 'pyrua_msgs/action/MoveTo_Result'
    assert counts[topics.EPISODE] == 2
    assert counts[topics.CELL_CODE] == counts[topics.CELL_OUTPUT] == 3
    assert counts[topics.CELL_IMAGE] == 2  # the task card's image and cell 1's robo.show
    assert counts[head] == counts[topics.camera_info('head')] == counts[topics.TF] == 1
    assert counts[topics.JOINT_STATES] == counts[topics.PRIMITIVE_GOAL] == 2
    assert counts[topics.PRIMITIVE_RESULT] == counts[topics.primitive_result('move_to')] == 2
    assert counts[topics.primitive_goal('move_to')] == 2
    assert types[topics.CELL_RECORD] == 'pyrua_msgs/msg/CellRecord'
    assert counts[topics.EPISODE_EVENT] == 2 and counts[topics.CELL_RECORD] == 3


def _mcap_messages(path):
    """Yield ``(topic, decoded message)`` with the mcap library alone."""
    with open(path, 'rb') as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        for _, channel, _, message in reader.iter_decoded_messages():
            yield channel.topic, message


def test_mcap_library_decodes_the_bag_without_rosbags(script_run, toy):
    run_dir, _ = script_run
    seen = Counter()
    for topic, message in _mcap_messages(find_mcap(run_dir / 'bag')):
        seen[topic] += 1
        if topic == topics.camera_image('head'):
            assert (message.width, message.height, message.encoding) == (64, 48, 'rgb8')
            pixels = np.frombuffer(bytes(message.data), np.uint8).reshape(48, 64, 3)
            assert np.array_equal(pixels, toy.picture(1))
        if topic == topics.camera_info('head'):
            assert list(message.k) == [50.0, 0.0, 32.0, 0.0, 50.0, 24.0, 0.0, 0.0, 1.0]
        if topic == topics.JOINT_STATES:  # the driver's format (conversions.joint_states)
            assert list(message.name) == [f'left/joint{i}' for i in range(1, 9)]
            assert list(message.position[-2:]) == pytest.approx([0.02, 0.02])
        if topic == topics.CELL_RECORD and message.index == 1:
            assert [(i.camera, i.note, i.index) for i in message.images] == [
                ('head', 'the table', 1)]
            assert message.error == '' and message.code == CELLS[0]
        if topic == topics.EPISODE_EVENT and message.event == 'end':
            assert (message.end_reason, message.success, message.cells) == ('solved', True, 3)
        if topic == topics.primitive_result('move_to'):
            assert message.reached and list(message.final_m) == pytest.approx([0.1, 0.2, 0.3],
                                                                              abs=0.06)
    assert seen[topics.CELL_CODE] == 3 and seen[topics.camera_image('head')] == 1


def test_read_bag_joins_cells_frames_and_images_with_their_cell_index(script_run, toy):
    run_dir, _ = script_run
    recording = read_bag(run_dir)
    assert not recording.repaired
    assert [c['code'] for c in recording.cells] == list(CELLS[:3])
    assert [c['cell'] for c in recording.cells] == [1, 2, 3]
    shown = recording.cells[0]['images']
    assert len(shown) == 1 and shown[0]['camera'] == 'head' and shown[0]['note'] == 'the table'
    assert np.array_equal(shown[0]['pixels'], toy.picture(1))
    assert shown[0]['offset'] == recording.cells[0]['output'].index('[image 1')
    assert [camera for camera, _ in recording.card_images] == ['head']
    assert np.array_equal(recording.card_images[0][1], toy.picture(0))
    (frame,) = recording.frames
    assert frame.cell == 1 and frame.camera == 'head'
    assert np.allclose(frame.world_from_camera, toy.head_pose)
    assert [g['cell'] for g in recording.goals] == [2, 3]
    assert recording.goals[1]['kwargs'] == {'arm': 'left', 'xyz': [0.1, 0.2, 0.35]}
    assert recording.results[0]['fields']['reached'] is True
    assert recording.results[0]['result_repr'].startswith('MoveResult(reached')
    assert [j.cell for j in recording.joint_states] == [2, 3]
    assert recording.start['config'] == {'budgets': {'max_cells': 10}}
    assert recording.end['end_reason'] == 'solved' and recording.end['cell'] == 3
    assert recording.end['success'] is True and recording.end['score'] == 1.0


def test_transcript_holds_header_cells_and_end_and_read_cells_returns_the_code(script_run):
    run_dir, _ = script_run
    transcript = read_transcript(run_dir / 'transcript.jsonl')
    assert transcript.header['task'] == 'toy' and transcript.header['seed'] == 3
    assert transcript.header['instruction'] == 'move the left arm twice'
    assert transcript.end['end_reason'] == 'solved'
    assert read_cells(run_dir) == list(CELLS[:3])
    (image,) = transcript.cells[0].images
    assert (run_dir / image['file']).is_file() and image['file'].startswith('images/')
    assert transcript.cells[1].calls[0]['name'] == 'move_to'
    assert not transcript.truncated


def test_code_agent_transcript_stores_each_message_once_with_images_as_files(
        tmp_path, toy, llm_server, llm_client):
    llm_server.reset([code_turn("robo.show('head')"), *end_turns('done')])
    run_dir = tmp_path / 'agent'
    recorder = Recorder(run_dir)
    world = toy.Station(recorder).world()
    planner = toy.CodePlanner(RecordedChatClient(llm_client, recorder))
    result = run_recorded_episode(world, planner, recorder, config={})
    assert result.end_reason == 'gave_up' and result.ledger.totals().llm_calls == 2
    text = (run_dir / 'transcript.jsonl').read_text()
    assert 'base64' not in text
    transcript = read_transcript(run_dir)
    roles = [(m['call'], m['position'], m['role']) for m in transcript.messages]
    assert roles == [(1, 0, 'system'), (1, 1, 'user'), (1, 2, 'assistant'), (2, 3, 'tool'),
                     (2, 4, 'user'), (2, 5, 'assistant')]
    files = [part['path'] for m in transcript.messages if isinstance(m['content'], list)
             for part in m['content'] if part['type'] == 'image_file']
    assert len(files) == 2 and all((run_dir / f).is_file() for f in files)
    calls = transcript.llm_calls
    assert [c['call'] for c in calls] == [1, 2] and [c['cell'] for c in calls] == [1, 2]
    assert calls[0]['accounting']['input_tokens'] > 0
    assert calls[0]['tool_calls'][0]['name'] == 'python'
    with AnyReader([run_dir / 'bag']) as reader:
        (connection,) = [c for c in reader.connections if c.topic == topics.LLM_CALL_RECORD]
        typed = [reader.deserialize(raw, connection.msgtype)
                 for _, _, raw in reader.messages(connections=[connection])]
    assert [(t.cell_index, t.model) for t in typed] == [(0, 'loopback'), (1, 'loopback')]
    recording = read_bag(run_dir)
    assert [c['accounting']['output_tokens'] for c in recording.llm_calls] == [
        c.output_tokens for c in result.ledger.calls]


def test_recorder_is_the_observer_the_primitive_layer_calls(tmp_path):
    with Recorder(tmp_path / 'run') as recorder:
        assert isinstance(recorder, EpisodeObserver)
        assert recorder.current_cell == 0


def test_recorder_refuses_a_run_directory_that_holds_files(tmp_path):
    (tmp_path / 'old.txt').write_text('x')
    with pytest.raises(FileExistsError, match='not empty'):
        Recorder(tmp_path)


def test_default_run_dir_names_task_seed_and_layout_and_never_reuses_a_name(tmp_path):
    first = default_run_dir('pick place', 7, 2, root=tmp_path)
    assert first.parent == tmp_path and first.name.endswith('_pick-place_s7_l2')
    assert first.is_dir() and not any(first.iterdir())
    second = default_run_dir('pick place', 7, 2, root=tmp_path)
    assert second != first and second.is_dir() and not any(second.iterdir())


def test_default_run_dir_gives_each_of_many_concurrent_callers_its_own_folder(tmp_path):
    from concurrent.futures import ThreadPoolExecutor
    from datetime import datetime
    now = datetime(2026, 12, 1, 12, 0, 0)
    with ThreadPoolExecutor(8) as pool:
        folders = list(pool.map(lambda _: default_run_dir('pick_place', 0, 0, root=tmp_path,
                                                          now=now), range(32)))
    assert len(set(folders)) == 32
    assert all(folder.is_dir() for folder in folders)


def test_array_results_are_summarised_and_untyped_results_keep_their_json(tmp_path):
    with Recorder(tmp_path / 'run') as recorder:
        goal = recorder.primitive_goal('image', ('head',), {})
        recorder.primitive_result(goal, np.zeros((48, 64, 3), np.uint8), duration_s=0.01)
        failed = recorder.primitive_goal('move_to', (), {'arm': 'up', 'xyz': (0, 0, 0)})
        recorder.primitive_result(failed, None, duration_s=0.0,
                                  error="ValueError: unknown arm 'up'")
    recording = read_bag(tmp_path / 'run')
    image, move = recording.results
    assert image['fields'] == {'ndarray': {'shape': [48, 64, 3], 'dtype': 'uint8'}}
    assert image['name'] == 'image' and image['goal_id'] == 1
    assert move['error'] == "ValueError: unknown arm 'up'" and move['fields'] is None
    assert topics.primitive_result('move_to') not in recording.topic_counts
    assert recording.topic_counts[topics.primitive_goal('move_to')] == 1

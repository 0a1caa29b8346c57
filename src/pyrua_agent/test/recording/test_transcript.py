"""The JSONL transcript: one flushed line per record, images as files, tolerant reading."""

import base64
import json

import numpy as np
from pyrua_agent.llm import attach_image, user_message
from pyrua_agent.recording import read_cells, read_transcript
from pyrua_agent.recording.transcript import history_suffix, TranscriptWriter
import pytest


def test_each_record_is_on_disk_before_close(tmp_path):
    writer = TranscriptWriter(tmp_path)
    writer.write('cell', {'index': 1, 'code': 'x = 1', 'output': '', 'error': None,
                          'stopped_reason': None, 'duration_s': 0.1})
    assert json.loads((tmp_path / 'transcript.jsonl').read_text())['code'] == 'x = 1'
    writer.close()
    with pytest.raises(RuntimeError, match='closed'):
        writer.write('end', {})


def test_message_images_become_files_saved_once_and_never_base64(tmp_path):
    writer = TranscriptWriter(tmp_path)
    image = attach_image('head camera', np.full((4, 5, 3), 7, np.uint8))
    message = user_message('look', [image, image])
    record = writer.message_record(message, 'm0')
    paths = [p['path'] for p in record['content'] if p['type'] == 'image_file']
    assert paths == ['images/m0_2.png', 'images/m0_2.png']  # part 2; the copy is reused
    payload = image.url.split(',', 1)[1]
    assert (tmp_path / paths[0]).read_bytes() == base64.b64decode(payload)
    assert 'base64' not in json.dumps(record)
    writer.close()


def test_remote_image_urls_are_refused(tmp_path):
    writer = TranscriptWriter(tmp_path)
    with pytest.raises(ValueError, match='base64 data URL'):
        writer.save_data_url('x', 'https://example.org/cat.png')
    writer.close()


def test_cut_off_last_line_is_ignored_and_flagged(tmp_path):
    lines = [json.dumps({'kind': 'header', 'task': 't'}),
             json.dumps({'kind': 'cell', 'index': 1, 'code': 'a()', 'output': ''}),
             '{"kind": "cell", "index": 2, "co']
    (tmp_path / 'transcript.jsonl').write_text('\n'.join(lines))
    transcript = read_transcript(tmp_path)
    assert transcript.truncated and transcript.end is None
    assert read_cells(tmp_path) == ['a()']


def test_damaged_middle_line_and_unknown_kind_are_errors(tmp_path):
    path = tmp_path / 'transcript.jsonl'
    path.write_text('{"kind": "header"}\nnot json\n')
    with pytest.raises(ValueError, match=':2 is not JSON'):
        read_transcript(path)
    path.write_text('{"kind": "gossip"}\n')
    with pytest.raises(ValueError, match="kind 'gossip'"):
        read_transcript(path)


def test_history_suffix_finds_where_a_request_stops_repeating_the_last():
    first = [{'role': 'system', 'content': 's'}, {'role': 'user', 'content': 'u'}]
    position, prints = history_suffix([], first)
    assert position == 0
    second = [*first, {'role': 'assistant', 'content': 'a'}]
    assert history_suffix(prints, second)[0] == 2
    rewritten = [{'role': 'system', 'content': 'other'}, *second[1:]]
    assert history_suffix(prints, rewritten)[0] == 0

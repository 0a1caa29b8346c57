"""A killed recording keeps every completed message; readers repair the bag on open."""

import os
import signal
import subprocess
import sys
import textwrap
import time

from mcap.exceptions import EndOfFile
from mcap.records import Message
from mcap.stream_reader import StreamReader
import numpy as np
from pyrua_agent.recording import read_bag, read_transcript, repair_bag, topics
from pyrua_agent.recording.bag_repair import find_mcap, scan_mcap
from pyrua_agent.recording.bag_writer import BagWriter
from pyrua_agent.recording.convert import image_message, json_message
from pyrua_agent.recording.msg_types import load_project_types
import pytest
from rosbags.highlevel import AnyReader

# A recording episode in a child process: every cell prints a marker line to stdout after
# it was recorded, then the next cell blocks until the parent kills the process.
CHILD = textwrap.dedent("""
    import sys, time
    from pyrua_agent.episode import EpisodeWorld, run_episode
    from pyrua_agent.planners.base import TaskCard
    from pyrua_agent.planners.percent import parse_percent
    from pyrua_agent.planners.script import ScriptPlanner
    from pyrua_agent.recording import Recorder

    cells = [f'print("cell {k}")' for k in range(1, {n} + 1)] + ['import time; time.sleep(60)']
    recorder = Recorder(sys.argv[1])
    card = TaskCard(task='killed', instruction='wait to be killed', robot_state='')
    world = EpisodeWorld(task='killed', seed=0, layout=0, card=card, primitives={{}},
                         acting=())
    def on_cell(cell, result):
        recorder.cell(cell, result)
        print('recorded', result.index, flush=True)
    recorder.episode_started({{}}, card, seed=0, layout=0, planner='script')
    planner = ScriptPlanner(parse_percent(''.join(f'# %%\\n{{c}}\\n' for c in cells)))
    run_episode(world, planner, on_cell=on_cell)
""")


def _stream_messages(path):
    """Count the messages the mcap library's stream reader finds before the file ends."""
    count = 0
    with open(path, 'rb') as stream:
        try:
            for record in StreamReader(stream, skip_magic=False).records:
                count += isinstance(record, Message)
        except EndOfFile:
            pass  # the file was cut off where the writer was killed
    return count


@pytest.mark.slow
def test_sigkilled_recording_loses_no_completed_cell(tmp_path):
    cells = 3
    run_dir = tmp_path / 'killed'
    script = tmp_path / 'child.py'
    script.write_text(CHILD.replace('{n}', str(cells)).replace('{{', '{').replace('}}', '}'))
    child = subprocess.Popen([sys.executable, str(script), str(run_dir)],
                             stdout=subprocess.PIPE, text=True)
    try:
        for k in range(1, cells + 1):
            assert child.stdout.readline().strip() == f'recorded {k}'
        time.sleep(0.3)  # the last cell is running (sleeping) now
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=10) == -signal.SIGKILL
    finally:
        child.stdout.close()
        if child.poll() is None:
            child.kill()
            child.wait()
    bag = run_dir / 'bag'
    assert not (bag / 'metadata.yaml').exists()
    # Independent reader 1: the mcap library's stream reader over the unrepaired file.
    # Episode start, then code and output per cell, each with its typed twin when defined.
    expected = {topics.EPISODE: 1, topics.CELL_CODE: cells, topics.CELL_OUTPUT: cells}
    if topics.CELL_RECORD_TYPE in load_project_types().store.types:
        expected.update({topics.EPISODE_EVENT: 1, topics.CELL_RECORD: cells})
    assert _stream_messages(find_mcap(bag)) == sum(expected.values())
    assert repair_bag(bag) == sum(expected.values())
    # Independent reader 2: rosbags' AnyReader over the repaired bag.
    with AnyReader([bag]) as reader:
        counts = {c.topic: c.msgcount for c in reader.connections}
    assert counts == expected
    recording = read_bag(run_dir)
    assert [c['output'] for c in recording.cells] == [f'cell {k}\n' for k in range(1, 4)]
    assert recording.end is None
    assert [c.code for c in read_transcript(run_dir).cells] == [
        f'print("cell {k}")' for k in range(1, 4)]


def _write_groups(path, groups):
    types = load_project_types()
    writer = BagWriter(path, types)
    for k in range(groups):
        writer.write_group([
            (topics.CELL_OUTPUT, topics.STRING, json_message(types.store, {'cell': k})),
            (topics.CELL_IMAGE, topics.IMAGE,
             image_message(types.store, np.full((8, 8, 3), k, np.uint8), 0.0, 'head'))])
    return writer


def test_bag_cut_anywhere_keeps_every_whole_group(tmp_path):
    writer = _write_groups(tmp_path / 'bag', 4)
    data = find_mcap(tmp_path / 'bag').read_bytes()
    sizes = []
    for cut in range(len(data) // 2, len(data) + 1, 97):
        broken = tmp_path / f'cut{cut}' / 'bag'
        broken.mkdir(parents=True)
        (broken / 'bag.mcap').write_bytes(data[:cut])
        scan = scan_mcap(broken / 'bag.mcap')
        assert len(scan.messages) % 2 == 0  # a group is on disk whole or not at all
        sizes.append(len(scan.messages))
        if scan.messages:
            assert repair_bag(broken) == len(scan.messages)
            assert (broken / 'metadata.yaml').exists()
    writer.close()
    assert sizes[-1] == 8 and sizes == sorted(sizes)


def test_read_bag_repairs_a_bag_without_metadata_on_open(tmp_path):
    writer = _write_groups(tmp_path / 'bag', 2)
    killed = tmp_path / 'run' / 'bag'  # what a kill leaves: the flushed MCAP, no metadata
    killed.mkdir(parents=True)
    (killed / 'bag.mcap').write_bytes(find_mcap(tmp_path / 'bag').read_bytes())
    writer.close()
    recording = read_bag(tmp_path / 'run')
    assert recording.repaired
    assert recording.topic_counts == {topics.CELL_OUTPUT: 2, topics.CELL_IMAGE: 2}
    assert [p.name for p in (tmp_path / 'run').iterdir()] == ['bag']
    assert read_bag(tmp_path / 'run').repaired is False


def test_scan_refuses_a_file_that_is_not_mcap(tmp_path):
    path = tmp_path / 'x.mcap'
    path.write_bytes(b'not an mcap file')
    with pytest.raises(ValueError, match='not an MCAP file'):
        scan_mcap(path)


def test_bag_writer_refuses_an_existing_directory(tmp_path):
    with pytest.raises(FileExistsError, match='exists'):
        BagWriter(tmp_path, load_project_types())

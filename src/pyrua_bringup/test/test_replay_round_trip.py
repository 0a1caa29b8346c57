"""
Replay round trip without ROS: record an episode, play the bag into the agent node.

``pyrua run`` (in process) or the three nodes of ``sim.launch.py`` on the rclpy double
(the agent node's own recording, with what primitives_node read) record an episode on the
twin. A bag player publishes the bag's topics
(``/joint_states`` in the driver's format, ``/tf_static``, ``/tf``, ``/clock``, the camera
images and infos) into the rclpy double's graph, as ``ros2 bag play`` does for
``replay.launch.py``; a real ``RosStation`` (``station.frame_queue``, replay.yaml's topic
names) on a double node reads them, and the agent node's assembly (``run_node_episode``
over ``open_station``, the replay planner) runs the recorded cells again. Every cell's
output must be the recorded one, and the agent-side recording holds the frames and joint
states its primitives read. The cells here only sense (locate, pose, joints, show) on a
station without the replay's motion answers; ``test_replay_motion_round_trip`` replays
cells that move through the agent node as ``replay.launch.py`` runs it.
"""

import functools
from pathlib import Path
import threading
import time

import pytest


CELLS = """# %%
block = robo.locate('blue block')
print(block)
# %%
print(robo.pose('left'))
print(robo.joints('right'))
# %%
robo.show('head')
print('shown the head camera')
"""
PLAYED = ('/joint_states', '/clock', '/tf', '/tf_static')


def _play(bag, publisher_node, typestore):
    """Publish every message of ``bag`` on its topic, in log order (``ros2 bag play``)."""
    from rosbags.highlevel import AnyReader

    publishers = {}
    with AnyReader([Path(bag)], default_typestore=typestore) as reader:
        wanted = [c for c in reader.connections if c.topic in PLAYED or (
            c.topic.startswith('/pyrua/camera/') and c.topic.endswith(
                ('/image_raw', '/camera_info')))]
        for connection, _t, raw in reader.messages(connections=wanted):
            if connection.topic not in publishers:
                publishers[connection.topic] = publisher_node.create_publisher(
                    None, connection.topic, 10)
            publishers[connection.topic].publish(reader.deserialize(raw, connection.msgtype))
    return sorted(publishers)


def _record_with_pyrua_run(ros, script, tmp_path):
    from pyrua_agent.cli import main

    assert main(['run', '--task', 'pick_place', '--planner', 'script', '--script',
                 str(script), '--record', str(tmp_path / 'cli')]) == 0
    (run,) = (tmp_path / 'cli').iterdir()
    return run


def _record_with_agent_node(ros, script, tmp_path):
    """Run sim_node, primitives_node and agent_node (namespace pyrua) on the double."""
    ros.OVERRIDES['primitives_node'] = {'library.segmenter': 'color'}
    ros.OVERRIDES['agent_node'] = {'planner': 'script', 'source': str(script),
                                   'record_dir': str(tmp_path / 'node_recorded')}
    ros.NAMESPACE = '/pyrua'
    from pyrua_agent.ros.agent_node import AgentNode
    from pyrua_primitives.ros.primitives_node import PrimitivesNode
    from pyrua_sim.ros.sim_node import SimNode

    nodes = (SimNode(), PrimitivesNode(), AgentNode())
    executor = ros.MultiThreadedExecutor()
    for node in nodes:
        executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    try:
        result = nodes[2].run()
    finally:
        executor.shutdown()
        spinner.join(5.0)
        for node in reversed(nodes):
            node.destroy()
        ros.NAMESPACE = '/'
    assert result.end_reason != 'infra_error', result.end_detail
    return Path(result.run_dir)


@pytest.mark.slow
@pytest.mark.parametrize('record', [_record_with_pyrua_run, _record_with_agent_node],
                         ids=['pyrua_run', 'agent_node'])
def test_a_bag_played_into_the_agent_node_reproduces_every_cell(
        ros, typestore, tmp_path, monkeypatch, record):
    from pyrua_agent.recording import read_bag, read_transcript

    monkeypatch.chdir(tmp_path)
    script = tmp_path / 'cells.py'
    script.write_text(CELLS)
    cli_run = record(ros, script, tmp_path)
    recorded = read_transcript(cli_run)

    from pyrua_agent.ros.config import AgentNodeConfig, episode_spec
    from pyrua_agent.ros.episode_run import run_node_episode
    from pyrua_agent.episode import open_station
    from pyrua_primitives.ros.config import RosStationConfig
    from pyrua_primitives.ros.ros_station import RosStation

    station_config = RosStationConfig(image_topic='/pyrua/camera/{camera}/image_raw',
                                      camera_info_topic='/pyrua/camera/{camera}/camera_info',
                                      frame_queue=True, wait_timeout_s=5.0)
    node = ros.Node('agent_node', namespace='/pyrua')
    station = RosStation(node, station_config, ros.ReentrantCallbackGroup())
    player = ros.Node('rosbag2_player')
    executor = ros.MultiThreadedExecutor()
    executor.add_node(node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    try:
        played = _play(cli_run / 'bag', player, typestore)
        assert '/tf_static' in played and '/clock' in played, played
        config = AgentNodeConfig(task='pick_place', planner='replay', source=str(cli_run),
                                 evaluator=False, instruction=recorded.header['instruction'],
                                 record_dir=str(tmp_path / 'node'), station=station_config)
        result = run_node_episode(episode_spec(config),
                                  functools.partial(open_station, station=station))
    finally:
        executor.shutdown()
        thread.join(5.0)
        station.destroy()
    assert result.end_reason != 'infra_error', result.end_detail
    assert result.cells == len(recorded.cells) == 3
    for replayed, cell in zip(result.cell_results, recorded.cells):
        assert replayed.error is None, replayed.error
        assert replayed.output == cell.output
    assert 'found' in result.cell_results[0].output

    node_bag, cli_bag = read_bag(result.run_dir), read_bag(cli_run)
    assert [f.camera for f in node_bag.frames] == [f.camera for f in cli_bag.frames]
    assert len(node_bag.joint_states) == len(cli_bag.joint_states) > 0
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and thread.is_alive():
        time.sleep(0.05)

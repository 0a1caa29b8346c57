"""
``replay.launch.py`` on the rclpy double: an episode that moves replays cell for cell.

An episode of cells that sense, move the arm, work the gripper, go home, wait and read the
arm's pose again is recorded twice on the twin: with ``pyrua run`` (in process) and with the
three nodes of ``sim.launch.py`` (``config/sim.yaml``). Each bag is then replayed as
``replay.launch.py`` runs it: the agent node (``config/replay.yaml`` through the launch
file's own ``_sections``, ``bag:=`` as ``replay_bag``) resumes a paused player, which then
publishes the bag's topics as ``ros2 bag play`` does; the moving primitives answer from
the recording and the rest runs on the played frames and joint states. Every cell prints
what it printed when recorded. A changed ``move_to`` argument is a divergence in its cell.
"""

from pathlib import Path
import threading

from launch_sections import launch_sections
import pytest

BRINGUP = Path(__file__).resolve().parents[1]

CELLS = """# %% look
block = robo.locate('blue block', cameras=['head'])
print(block)
p = robo.pose('left')
print(p)
# %% move
m = robo.move_to('left', [-0.3, -0.1, 0.845])
print(m)
print(robo.pose('left'))
print(robo.open_gripper('left'))
print(robo.close_gripper('left'))
print(robo.joints('left'))
# %% home
print(robo.home('left'))
print(robo.wait(0.2))
print(robo.pose('left'))
robo.show('head')
print(robo.locate('blue block', cameras=['head']))
"""
PLAYED = ('/joint_states', '/clock', '/tf', '/tf_static')


def _pyrua_run(root, program):
    """Record ``program`` (CELLS, or None: the bundled pick_place) with ``pyrua run``."""
    from pyrua_agent.cli import main

    script = []
    if program is not None:
        (root / 'cells.py').write_text(program)
        script = ['--planner', 'script', '--script', str(root / 'cells.py')]
    assert main(['run', '--task', 'pick_place', *script, '--record', str(root / 'runs')]) == 0
    (run,) = (root / 'runs').iterdir()
    return run


@pytest.fixture(scope='module')
def cli_runs(tmp_path_factory):
    """Record the cells and the bundled pick_place program in process (``pyrua run``)."""
    return {'cells': _pyrua_run(tmp_path_factory.mktemp('cells'), CELLS),
            'pick_place': _pyrua_run(tmp_path_factory.mktemp('pick_place'), None)}


def _spin(ros, nodes):
    executor = ros.MultiThreadedExecutor(num_threads=6)
    for node in nodes:
        executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    return executor, spinner


def _record_with_sim_launch(ros, monkeypatch, tmp_path, program):
    """Run sim_node, primitives_node and agent_node as ``sim.launch.py`` starts them."""
    from pyrua_primitives.ros.parameters import flatten

    for node, section in launch_sections(BRINGUP / 'config' / 'sim.yaml').items():
        ros.OVERRIDES[node] = flatten(section)
    ros.OVERRIDES['agent_node'].update({'planner': 'script',
                                        'record_dir': str(tmp_path / 'node')})
    if program is not None:  # else the bundled program of the task
        (tmp_path / 'cells.py').write_text(program)
        ros.OVERRIDES['agent_node']['source'] = str(tmp_path / 'cells.py')
    monkeypatch.setattr(ros, 'NAMESPACE', '/pyrua')
    from pyrua_agent.ros.agent_node import AgentNode
    from pyrua_primitives.ros.primitives_node import PrimitivesNode
    from pyrua_sim.ros.sim_node import SimNode

    nodes = (SimNode(), PrimitivesNode(), AgentNode())
    executor, spinner = _spin(ros, nodes)
    try:
        result = nodes[2].run()
    finally:
        executor.shutdown()
        spinner.join(5.0)
        for node in reversed(nodes):
            node.destroy()
        monkeypatch.setattr(ros, 'NAMESPACE', '/')
        ros.OVERRIDES.clear()
    assert result.end_reason != 'infra_error', result.end_detail
    return Path(result.run_dir)


class BagPlayer:
    """``ros2 bag play --start-paused``: publishes the bag's topics once ``~/resume`` is called."""

    def __init__(self, ros, typestore, bag):
        self.node = ros.Node('rosbag2_player', namespace='/')
        self._typestore, self._bag = typestore, bag
        self.thread = threading.Thread(target=self._play, daemon=True)
        self.node.create_service(ros.MESSAGES.module('rosbag2_interfaces', 'srv').Resume,
                                 '~/resume', self._resume)

    def _resume(self, request, response):
        self.thread.start()  # the player's own thread, not the executor's
        return response

    def _play(self):
        from rosbags.highlevel import AnyReader

        publishers = {}
        with AnyReader([Path(self._bag)], default_typestore=self._typestore) as reader:
            wanted = [c for c in reader.connections if c.topic in PLAYED or (
                c.topic.startswith('/pyrua/camera/') and c.topic.endswith(
                    ('/image_raw', '/camera_info')))]
            for connection, _t, raw in reader.messages(connections=wanted):
                if connection.topic not in publishers:
                    publishers[connection.topic] = self.node.create_publisher(
                        None, connection.topic, 10)
                publishers[connection.topic].publish(
                    reader.deserialize(raw, connection.msgtype))


def _replay(ros, monkeypatch, typestore, run, source, tmp_path):
    """Run the agent node as ``replay.launch.py bag:=<run>/bag transcript:=<source>`` does."""
    from pyrua_primitives.ros.parameters import flatten

    for node, section in launch_sections(BRINGUP / 'config' / 'replay.yaml').items():
        ros.OVERRIDES[node] = flatten(section)
    ros.OVERRIDES['agent_node'].update({'source': str(source), 'replay_bag': str(run / 'bag'),
                                        'record_dir': str(tmp_path / 'replayed')})
    player = BagPlayer(ros, typestore, run / 'bag')
    monkeypatch.setattr(ros, 'NAMESPACE', '/pyrua')
    from pyrua_agent.ros.agent_node import AgentNode

    agent = AgentNode()
    executor, spinner = _spin(ros, (player.node, agent))
    try:
        result = agent.run()
    finally:
        executor.shutdown()
        spinner.join(5.0)
        agent.destroy()
    assert player.thread.ident is not None, 'the agent node never resumed the player'
    assert not executor.errors and not ros.ERRORS, (executor.errors, ros.ERRORS)
    return result


@pytest.mark.slow
@pytest.mark.parametrize('recorder', ['pyrua_run', 'sim_launch'])
@pytest.mark.parametrize('program', ['cells', 'pick_place'])
def test_a_replayed_episode_prints_every_motion_cell_as_recorded(
        ros, typestore, cli_runs, tmp_path, monkeypatch, program, recorder):
    from pyrua_agent.recording import read_bag, read_transcript

    run = cli_runs[program] if recorder == 'pyrua_run' else _record_with_sim_launch(
        ros, monkeypatch, tmp_path, CELLS if program == 'cells' else None)
    recorded = read_transcript(run)
    assert all(c.error is None for c in recorded.cells)
    moved = '\n'.join(c.output for c in recorded.cells)
    assert 'MoveResult(reached, left' in moved and 'GripperResult' in moved, moved
    if program == 'pick_place':
        assert recorded.end['end_reason'] == 'solved'

    result = _replay(ros, monkeypatch, typestore, run, run, tmp_path)
    assert result.end_reason != 'infra_error', result.end_detail
    assert result.cells == len(recorded.cells)
    # The recorded verdict replays too: pick_place's success guard stops the last cell at
    # the same call, and the episode is solved again.
    assert result.end_reason == recorded.end['end_reason'], result.end_detail
    for replayed, cell in zip(result.cell_results, recorded.cells):
        assert replayed.error is None, replayed.error
        assert replayed.output == cell.output
    # The replay's own recording read the played frames and samples in the recorded order,
    # less the samples the recorded run read inside the primitives answered from the bag.
    # (An agent node's bag may tag a sample the primitives node read with the goal after
    # its own: it can arrive on the observed/ topic after the result. So the order is
    # exact for pyrua run; for the agent node, every replayed sample is a recorded one.)
    from pyrua_agent.replay.played_world import MOVING

    again, original = read_bag(result.run_dir), read_bag(run)
    assert [f.camera for f in again.frames] == [f.camera for f in original.frames]
    answered = {g['goal_id'] for g in original.goals if g['name'] in MOVING}
    read = [s.stamp_s for s in original.joint_states if s.after_goal not in answered]
    replayed = [s.stamp_s for s in again.joint_states]
    if recorder == 'pyrua_run':
        assert replayed == pytest.approx(read, abs=1e-6)
    else:
        assert all(any(abs(t - r) < 1e-6 for r in read) for t in replayed), (replayed, read)


@pytest.mark.slow
def test_a_changed_motion_argument_is_a_divergence_in_its_cell(
        ros, typestore, cli_runs, tmp_path, monkeypatch):
    from pyrua_agent.recording import read_transcript

    edited = tmp_path / 'edited.py'
    edited.write_text(CELLS.replace('-0.1, 0.845]', '-0.1, 0.95]'))
    result = _replay(ros, monkeypatch, typestore, cli_runs['cells'], edited, tmp_path)
    recorded = read_transcript(cli_runs['cells'])
    first, moved = result.cell_results[:2]
    assert first.error is None and first.output == recorded.cells[0].output
    assert moved.error is not None and 'MoveResult' not in moved.output, moved.output
    assert 'ReplayDivergence' in moved.output and 'is call 1 of cell 2' in moved.output, \
        moved.output
    assert 'xyz=[-0.3, -0.1, 0.95] vs recorded [-0.3, -0.1, 0.845]' in moved.output, \
        moved.output

"""
``sim.launch.py`` without ROS: its three nodes run the bundled program to success.

sim_node, primitives_node and agent_node as launch starts them (namespace ``pyrua``,
parameters from ``config/sim.yaml`` through the launch file's own ``_sections``), on the
rclpy double's executor.

The nodes are our node classes, unchanged: the twin behind the driver interfaces, the
primitives as action servers, the agent's episode with its ROS station, its action
transport and the sim node's services as evaluator. Only rclpy, tf2_ros and cv_bridge are
doubles (``rclpy_double``: rclpy's own node state and wait-set semantics).
"""

from pathlib import Path
import threading

from launch_sections import launch_sections
import pytest

BRINGUP = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_sim_launch_runs_the_bundled_program_to_success(ros, tmp_path, monkeypatch):
    from pyrua_agent.recording import read_bag
    from pyrua_primitives.ros.parameters import flatten

    sections = launch_sections(BRINGUP / 'config' / 'sim.yaml')
    for node, section in sections.items():
        ros.OVERRIDES[node] = flatten(section)
    ros.OVERRIDES['agent_node'].update({'planner': 'script', 'record_dir': str(tmp_path)})
    monkeypatch.setattr(ros, 'NAMESPACE', '/pyrua')

    from pyrua_agent.ros.agent_node import AgentNode
    from pyrua_primitives.ros.primitives_node import PrimitivesNode
    from pyrua_sim.ros.sim_node import SimNode

    sim, primitives, agent = SimNode(), PrimitivesNode(), AgentNode()
    executor = ros.MultiThreadedExecutor(num_threads=6)
    for node in (sim, primitives, agent):
        executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    try:
        result = agent.run()
    finally:
        executor.shutdown()
        spinner.join(5.0)
        agent.destroy()
        primitives.destroy()
        sim.destroy()
    assert not executor.errors and not ros.ERRORS, (executor.errors, ros.ERRORS)
    assert (result.end_reason, result.success) == ('solved', True), result.end_detail
    recording = read_bag(result.run_dir)
    assert recording.end['end_reason'] == 'solved'
    assert recording.joint_states and '/tf_static' in recording.topic_counts

    # The same program in process (pyrua run): the node's bag has the same topics and
    # frames, those locate read in the primitives node included (observed/ topics).
    from pyrua_agent.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(['run', '--task', 'pick_place', '--record', 'cli']) == 0
    (cli_run,) = (tmp_path / 'cli').iterdir()
    cli = read_bag(cli_run)
    assert set(recording.topic_counts) == set(cli.topic_counts)
    assert sorted(f.camera for f in recording.frames) == sorted(f.camera for f in cli.frames)

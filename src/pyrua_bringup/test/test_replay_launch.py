"""replay.launch.py plays the bag paused and the agent node resumes it once it subscribes."""

import ast
from pathlib import Path
import threading
import time

import pytest
import yaml

BRINGUP = Path(__file__).resolve().parents[1]


def test_the_bag_starts_paused_and_the_replay_config_resumes_it():
    tree = ast.parse((BRINGUP / 'launch' / 'replay.launch.py').read_text())
    (play,) = [c for c in ast.walk(tree) if isinstance(c, ast.Call)
               and getattr(c.func, 'id', '') == 'ExecuteProcess']
    cmd = [ast.unparse(e) for e in next(k.value for k in play.keywords if k.arg == 'cmd').elts]
    # The bag's own /clock (station time) drives the nodes; the player adds none.
    assert "'--start-paused'" in cmd and "'--clock'" not in cmd
    # tf2 subscribes to /tf_static transient_local; the bag records no offered QoS.
    overrides = cmd.index("'--qos-profile-overrides-path'") + 1
    assert 'replay_qos.yaml' in cmd[overrides]
    qos = yaml.safe_load((BRINGUP / 'config' / 'replay_qos.yaml').read_text())
    assert qos['/tf_static']['durability'] == 'transient_local'
    config = yaml.safe_load((BRINGUP / 'config' / 'replay.yaml').read_text())
    agent = config['agent_node']['ros__parameters']
    assert agent['player_resume_service'] == '/rosbag2_player/resume'
    assert agent['player_subscribers'] == 1 and agent['evaluator'] is False
    assert config['primitives_node']['ros__parameters']['station']['frame_queue'] is True


def test_the_player_is_resumed_only_after_every_camera_has_its_subscribers(ros):
    from pyrua_agent.ros.player_gate import resume_when_subscribed

    topics = [f'/pyrua/camera/{c}/image_raw' for c in ('head', 'left_wrist')]
    resumed = []
    player = ros.Node('rosbag2_player')
    player.create_service(ros.MESSAGES.module('rosbag2_interfaces', 'srv').Resume, '~/resume',
                          lambda request, response: resumed.append(time.monotonic())
                          or response)
    agent, primitives = ros.Node('agent_node'), ros.Node('primitives_node')
    for node in (agent, primitives):
        node.create_subscription(None, topics[0], lambda m: None, 10)
    executor = ros.MultiThreadedExecutor()
    executor.add_node(player)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    gate = threading.Thread(target=resume_when_subscribed,
                            args=(agent, '/rosbag2_player/resume', topics, 2, 10.0))
    try:
        gate.start()
        gate.join(0.3)  # it holds while left_wrist has no subscriber
        assert gate.is_alive() and not resumed
        subscribed = time.monotonic()
        for node in (agent, primitives):
            node.create_subscription(None, topics[1], lambda m: None, 10)
        gate.join(10.0)
        assert len(resumed) == 1 and resumed[0] >= subscribed
    finally:
        executor.shutdown()
        spinner.join(5.0)


def test_missing_subscribers_are_named(ros):
    from pyrua_agent.ros.player_gate import resume_when_subscribed
    from pyrua_primitives.errors import PrimitiveError

    agent = ros.Node('agent_node')
    with pytest.raises(PrimitiveError, match=r"/head/image_raw': 0}.*fewer than 2"):
        resume_when_subscribed(agent, '/rosbag2_player/resume', ['/head/image_raw'], 2, 0.2)

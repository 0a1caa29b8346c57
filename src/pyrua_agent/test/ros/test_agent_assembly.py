"""
``agent_node``'s episode, driven without ROS: same spec, same assembly, same bag topics.

The node's ROS parts are its station (a ``RosStation``), its transport (action goals) and
the sim node's services. Here the twin's own station stands in for the ROS station, the
in-process transport for the actions, and ``TwinHost`` (what the sim node serves
``reset_task`` and ``task_status`` from) for the services, answered as the sim node answers.
Everything else is the node's code path: ``episode_spec(AgentNodeConfig)``, then
``run_episode_spec`` with ``open_station``.
"""

import functools

from pyrua_agent.cli import main
from pyrua_agent.episode import open_station, run_episode_spec
from pyrua_agent.llm import EndpointConfig
from pyrua_agent.recording import read_bag, read_transcript
from pyrua_agent.ros.config import AgentNodeConfig, episode_spec
from pyrua_agent.testing import code_turn, end_turns, LoopbackLLMServer
from pyrua_sim.ros.twin_host import TwinHost
from pyrua_sim.twin import load_twin
import pytest


class TwinHostServices:
    """``reset_task`` and ``task_status`` answered as ``sim_node`` answers them."""

    def __init__(self, host):
        self.host = host

    def reset(self, task, seed, layout):
        ok, message = self.host.reset(task, seed, layout)
        assert ok, message
        return self.host.twin.instruction

    def success(self):
        return self.host.status().success

    def score(self):
        return self.host.status().score


def _turns():
    return [code_turn("block = robo.locate('blue block')\nprint(block)"),
            code_turn("print(robo.move_to('left', [-0.1, 0.1, 0.9]))"),
            code_turn("robo.show('head')\nprint(robo.close_gripper('left'))"),
            *end_turns('Stopping here.')]


@pytest.mark.slow
def test_agent_node_bag_has_the_topics_of_the_cli_bag(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with LoopbackLLMServer(_turns()) as server:
        assert main(['run', '--task', 'pick_place', '--planner', 'code', '--base-url',
                     server.base_url, '--model', 'loopback', '--record', 'cli']) == 0
    (cli_run,) = (tmp_path / 'cli').iterdir()

    host = TwinHost(load_twin('pick_place', 3, 1))  # the node resets it to the spec's layout
    try:
        with LoopbackLLMServer(_turns()) as server:
            config = AgentNodeConfig(
                task='pick_place', planner='code', record_dir=str(tmp_path / 'node'),
                endpoint=EndpointConfig(base_url=server.base_url, model='loopback'))
            opener = functools.partial(open_station, station=host.twin.station,
                                       evaluator=TwinHostServices(host))
            result = run_episode_spec(episode_spec(config), opener=opener)
    finally:
        host.twin.close()
    assert (host.twin.layout.seed, host.twin.layout.index) == (0, 0)
    assert result.run_dir is not None and result.cells == 3
    assert result.ledger.totals().llm_calls == 5  # 3 cells, 2 texts (correction)

    node_topics = set(read_bag(result.run_dir).topic_counts)
    cli_topics = set(read_bag(cli_run).topic_counts)
    assert node_topics == cli_topics
    for topic in ('/pyrua/llm/call', '/joint_states', '/tf', '/pyrua/camera/head/image_raw',
                  '/pyrua/primitive/locate/goal', '/pyrua/primitive/locate/result',
                  '/pyrua/primitive/move_to/goal', '/pyrua/cell/image'):
        assert topic in node_topics
    node, cli = read_transcript(result.run_dir), read_transcript(cli_run)
    assert node.header['task'] == cli.header['task'] == 'pick_place'
    assert [c.code for c in node.cells] == [c.code for c in cli.cells]

"""``agent_node``'s episode when its world does not open: an infra_error record, no crash."""

import functools

from pyrua_agent.episode import open_station
from pyrua_agent.recording import read_bag
from pyrua_agent.ros.config import AgentNodeConfig, episode_spec
from pyrua_agent.ros.episode_run import run_node_episode
from pyrua_primitives.errors import PrimitiveError
from pyrua_sim.twin import load_twin
import pytest


class UnreachableSimNode:
    """The sim node's services as the agent node sees them when no sim node runs."""

    def reset(self, task, seed, layout):
        raise PrimitiveError('service /pyrua/reset_task not available after 10.0 s; is the '
                             'sim node running (evaluator: true needs the twin)?')

    def success(self):
        raise AssertionError('never asked: the episode did not start')

    score = success


@pytest.fixture(scope='module')
def twin():
    twin = load_twin('pick_place', 0, 0)
    yield twin
    twin.close()


def test_a_world_that_does_not_open_ends_with_an_infra_error_record(tmp_path, twin):
    script = tmp_path / 'cells.py'
    script.write_text('# %%\nprint(1)\n')
    config = AgentNodeConfig(task='pick_place', planner='script', source=str(script),
                             record_dir=str(tmp_path / 'runs'))
    opener = functools.partial(open_station, station=twin.station,
                               evaluator=UnreachableSimNode())
    result = run_node_episode(episode_spec(config), opener)
    assert result.end_reason == 'infra_error' and result.cells == 0
    assert 'reset_task not available' in result.end_detail
    assert result.run_dir is not None
    recording = read_bag(result.run_dir)
    assert recording.end is not None and recording.end['end_reason'] == 'infra_error'
    assert 'reset_task not available' in recording.end['end_detail']


def test_an_opened_world_runs_as_before(tmp_path, twin):
    from pyrua_sim.ros.twin_host import TwinHost

    host = TwinHost(twin)

    class Services:
        def reset(self, task, seed, layout):
            assert host.reset(task, seed, layout)[0]
            return host.twin.instruction

        def success(self):
            return host.status().success

        def score(self):
            return host.status().score

    script = tmp_path / 'cells.py'
    script.write_text('# %%\nprint(6 * 7)\n')
    config = AgentNodeConfig(task='pick_place', planner='script', source=str(script),
                             record_dir='')
    opener = functools.partial(open_station, station=twin.station, evaluator=Services())
    result = run_node_episode(episode_spec(config), opener)
    assert result.end_reason != 'infra_error' and result.cells == 1
    assert result.cell_results[0].output.strip() == '42'

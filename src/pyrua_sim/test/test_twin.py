import numpy as np
from pyrua_primitives.station import Station
from pyrua_sim.errors import LayoutError
from pyrua_sim.evaluator import SimEvaluator
from pyrua_sim.twin import load_twin
import pytest


@pytest.fixture(scope='module')
def twin():
    with load_twin('swap_blocks', 0, 0) as loaded:
        yield loaded


def test_twin_gives_the_agent_a_station_and_keeps_the_evaluator(twin):
    assert isinstance(twin.station, Station)
    assert isinstance(twin.evaluator, SimEvaluator)
    assert twin.instruction == twin.layout.instruction
    assert repr(twin) == f"Twin('swap_blocks', seed=0, index=0: {twin.instruction!r})"


def test_reset_to_another_layout_keeps_the_station_object(twin):
    station = twin.station
    station.follow_joint_trajectory('left', np.array([station.joint_state('left')
                                                      .positions_rad]), np.array([0.2]))
    assert station.time_s() > 0
    twin.reset(index=3)
    assert twin.station is station and station.time_s() == 0.0
    assert (twin.layout.seed, twin.layout.index) == (0, 3)
    poses = twin.evaluator.object_poses()
    for spec in twin.layout.objects:
        np.testing.assert_allclose(poses[spec.name][:3], spec.pose[:3], atol=1e-9)
    twin.reset(seed=0, index=0)
    assert twin.layout.index == 0


def test_bad_task_seed_or_index_is_refused():
    with pytest.raises(ValueError, match="unknown task 'swap_block'; did you mean 'swap_blocks'"):
        load_twin('swap_block', 0, 0)
    with pytest.raises(LayoutError, match='seed 1000 vs valid range 0..999'):
        load_twin('swap_blocks', 1000, 0)

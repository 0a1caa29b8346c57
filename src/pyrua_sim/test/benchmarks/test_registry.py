"""Benchmark task names: parsing, suites, and the missing extra's message."""

import importlib.util

from pyrua_primitives.errors import MissingDependency
from pyrua_sim.benchmarks import benchmark_suites, is_benchmark_task, load
from pyrua_sim.benchmarks.libero.suites import base_suite, PRO_SUITES, STANDARD_SUITES
from pyrua_sim.benchmarks.registry import split_task
import pytest


def test_suites_list_the_standard_and_the_held_out_pro_suites():
    suites = benchmark_suites()['libero']
    assert set(STANDARD_SUITES) <= set(suites)
    assert {'libero_goal_swap', 'libero_10_env', 'libero_object_lan'} <= set(PRO_SUITES)
    assert set(PRO_SUITES) <= set(suites) and len(PRO_SUITES) == 20


def test_task_names_split_into_suite_and_index():
    assert is_benchmark_task('libero_spatial/3') and not is_benchmark_task('pick_place')
    source, suite, index = split_task('libero_goal_swap/2')
    assert (source.name, suite, index) == ('libero', 'libero_goal_swap', 2)


def test_unknown_suites_and_indices_are_refused_with_the_valid_names():
    with pytest.raises(ValueError, match="did you mean 'libero_spatial'"):
        split_task('libero_spatail/0')
    with pytest.raises(ValueError, match="'x' is not a task index; write e.g. libero_goal/0"):
        split_task('libero_goal/x')


def test_pro_suites_run_their_standard_suites_program():
    assert base_suite('libero_goal_swap') == 'libero_goal'
    assert base_suite('libero_10') == 'libero_10'
    with pytest.raises(ValueError, match='has no reference program'):
        base_suite('libero_90')


@pytest.mark.skipif(importlib.util.find_spec('libero') is not None,
                    reason='the LIBERO extra is installed here')
def test_without_the_extra_loading_says_how_to_install_it():
    with pytest.raises(MissingDependency, match=r'pip install -e src/pyrua_sim\[libero\]'):
        load('libero_spatial/0', 0)

import dataclasses

import numpy as np
from pyrua_primitives.station import ARMS, CAMERAS
from pyrua_sim.evaluator import EvaluationResult, SimEvaluator
from pyrua_sim.layout import TABLE_Z
from pyrua_sim.twin import load_twin
import pytest


@pytest.fixture(scope='module')
def twin():
    with load_twin('pick_place', 0, 0) as loaded:
        yield loaded


def _settle(station, seconds=0.3):
    for arm in ARMS:
        q = station.joint_state(arm).positions_rad
        station.follow_joint_trajectory(arm, np.array([q]), np.array([seconds]))


def test_object_poses_are_the_layout_poses_at_start(twin):
    poses = twin.evaluator.object_poses()
    for spec in twin.layout.objects:
        np.testing.assert_allclose(poses[spec.name][:3], spec.pose[:3], atol=0.003)


def test_hand_placed_block_in_goal_bowl_succeeds_and_near_miss_fails(twin):
    (block,), (goal,) = twin.layout.with_role('target'), twin.layout.with_role('goal')
    evaluator = SimEvaluator(twin.station, twin.layout)
    gx, gy = goal.xy
    evaluator.set_object_pose(block.name, (gx + 0.06, gy, TABLE_Z + 0.06))
    _settle(twin.station)
    evaluator.observe()
    assert not evaluator.success()
    evaluator.set_object_pose(block.name, (gx, gy, TABLE_Z + 0.05))
    _settle(twin.station)
    assert evaluator.observe() == 1.0
    result = evaluator.result()
    assert result.success and result.reason == '' and result.score == 1.0
    assert repr(result) == 'EvaluationResult(success, score=1.00)'
    evaluator.set_object_pose(block.name, block.pose)
    _settle(twin.station)
    assert not evaluator.success() and evaluator.score() == 1.0


def test_set_object_pose_refuses_an_unknown_name(twin):
    with pytest.raises(KeyError, match="no object 'obj/nothing' in the layout"):
        twin.evaluator.set_object_pose('obj/nothing', (0, 0, 1))


def _station_outputs(station):
    out = [station.table_height_m(), station.time_s()]
    for arm in ARMS:
        out += [station.joint_state(arm), station.joint_limits(arm), station.arm_base(arm)]
    for camera in CAMERAS:
        out.append(station.camera_model(camera))
    return out


def _numbers(value):
    if dataclasses.is_dataclass(value):
        return np.concatenate([_numbers(getattr(value, f.name)) for f in
                               dataclasses.fields(value)] or [np.zeros(0)])
    if isinstance(value, np.ndarray) and value.dtype.kind == 'f':
        return value.ravel()
    if isinstance(value, float):
        return np.array([value])
    return np.zeros(0)


def test_station_outputs_do_not_depend_on_object_poses(twin):
    """Moving every object changes no Station output but the pixels (rule 4)."""
    station = twin.station
    before = _numbers_of_all(station)
    t0 = station.time_s()
    for spec in twin.layout.objects:
        if spec.kind == 'block':
            twin.evaluator.set_object_pose(spec.name, (0.0, 0.3, TABLE_Z + 0.02))
    assert station.time_s() == t0
    after = _numbers_of_all(station)
    np.testing.assert_array_equal(before, after)
    public = {name for name in dir(station) if not name.startswith('_')}
    assert not public & {'layout', 'evaluator', 'object_poses', 'model', 'data'}


def _numbers_of_all(station):
    return np.concatenate([_numbers(v) for v in _station_outputs(station)])


def test_evaluation_result_repr_is_one_short_line():
    text = repr(EvaluationResult(False, 'pick_place check not met (3 obs.)', 0.6, 3))
    assert text == 'EvaluationResult(not yet: pick_place check not met (3 obs.), score=0.60)'

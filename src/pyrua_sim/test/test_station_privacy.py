"""Nothing the Station interface returns carries object poses (DESIGN.md rule 4)."""

import dataclasses

import numpy as np
from pyrua_primitives import station as station_api
from pyrua_sim.privileged import PrivilegedState
import pytest

OBJECT_WORDS = ('object', 'pose', 'cube', 'block', 'body', 'truth', 'success', 'task')


def _outputs(station):
    """Every value the Station interface can return without moving anything."""
    values = {'table': station.table_height_m(), 'time': station.time_s()}
    for arm in station_api.ARMS:
        values[f'state_{arm}'] = station.joint_state(arm)
        values[f'limits_{arm}'] = station.joint_limits(arm)
        values[f'base_{arm}'] = station.arm_base(arm)
    for camera in station_api.CAMERAS:
        values[f'model_{camera}'] = station.camera_model(camera)
    return values


def _flatten(value):
    if dataclasses.is_dataclass(value):
        return [x for f in dataclasses.fields(value) for x in _flatten(getattr(value, f.name))]
    return [np.asarray(value).tobytes()]


def test_station_outputs_are_bit_identical_after_an_object_moves(cube_station):
    before = {k: _flatten(v) for k, v in _outputs(cube_station).items()}
    # the far cube sits outside every arm's reach and touches nothing but the table
    cube_station.privileged_state().set_body_pose('far_cube', [0.45, 0.35, 0.79, 0.92, 0, 0, 0.38])
    after = {k: _flatten(v) for k, v in _outputs(cube_station).items()}
    assert after == before


def test_station_value_types_have_no_object_fields():
    types = [
        station_api.JointState, station_api.JointLimits, station_api.CameraModel,
        station_api.CameraIntrinsics, station_api.ArmBase, station_api.CameraFrame,
        station_api.TrajectoryResult, station_api.GripperResult,
    ]
    for value_type in types:
        for field in dataclasses.fields(value_type):
            assert not any(w in field.name for w in OBJECT_WORDS), (value_type, field.name)


def test_station_public_attributes_expose_no_simulator_state(cube_station):
    import mujoco

    public = [n for n in dir(cube_station) if not n.startswith('_')]
    assert 'privileged_state' in public
    for name in public:
        if name == 'privileged_state':
            continue
        value = getattr(cube_station, name)
        assert not isinstance(value, (mujoco.MjModel, mujoco.MjData, PrivilegedState)), name
    assert isinstance(cube_station.privileged_state(), PrivilegedState)


@pytest.mark.parametrize('arm', station_api.ARMS)
def test_results_of_motions_carry_joint_values_only(cube_station, arm):
    state = cube_station.joint_state(arm)
    result = cube_station.follow_joint_trajectory(arm, state.positions_rad[None, :], [0.05])
    assert result.final_positions_rad.shape == (6,)
    gripper = cube_station.command_gripper(arm, 0.06)
    assert isinstance(gripper.width_m, float)

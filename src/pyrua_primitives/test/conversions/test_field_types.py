"""
Every message our conversions build passes rclpy's field checks (``ROS_PYTHON_CHECK_FIELDS``).

``strict`` is a message factory that applies ``rclpy_fields`` as ``ros/messages.make`` does,
then checks each value the way rclpy's generated setters check it with type checks on: a
numeric sequence must be an ``array.array`` or a sequence of Python numbers of its kind
(never a numpy array), a fixed-size array a numpy array of its dtype and size, a float a
Python float. Field types come from the Jazzy definitions (rosbags) and ours.
"""

import array
from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
from pyrua_primitives import JointState
from pyrua_primitives.conversions.actions import goal_fields
from pyrua_primitives.conversions.camera_info import intrinsics_to_camera_info
from pyrua_primitives.conversions.control import (
    CONTROL_MSGS_DEFINITIONS,
    gripper_goal_fields,
    trajectory_to_message,
)
from pyrua_primitives.conversions.field_types import FLOAT_TYPES, INT_TYPES, rclpy_value
from pyrua_primitives.conversions.joint_states import joint_states_to_message
from pyrua_primitives.station import CameraIntrinsics
import pytest

BASE = {'float64': 'double', 'float32': 'float', 'bool': 'boolean', 'byte': 'octet'}
PY = {**{t: float for t in FLOAT_TYPES}, **{t: int for t in INT_TYPES}, 'boolean': bool,
      'string': str}


def _rclpy_type(desc):
    kind, detail = desc
    if kind.name == 'BASE':
        return BASE.get(detail[0], detail[0])
    if kind.name == 'NAME':
        package, _, name = detail.split('/')
        return f'{package}/{name}'
    sub, size = detail
    if kind.name == 'ARRAY':
        return f'{_rclpy_type(sub)}[{size}]'
    return f'sequence<{_rclpy_type(sub)}>' if not size else f'sequence<{_rclpy_type(sub)}, {size}>'


def _check(value, field_type, where):
    element = field_type.split('<')[1].split(',')[0].rstrip('>') if field_type.startswith(
        'sequence<') else field_type.split('[')[0]
    if field_type.startswith('sequence<') or field_type.endswith(']'):
        if field_type.endswith(']') and element in PY and element != 'string':
            ok = (isinstance(value, np.ndarray) and value.dtype == np.dtype(
                (FLOAT_TYPES | INT_TYPES)[element]) and value.size == int(
                field_type.split('[')[1][:-1]))
            assert ok, f'{where}: {type(value).__name__} vs numpy {element}[N]'
            return
        if isinstance(value, array.array):
            return
        assert isinstance(value, Sequence) and not isinstance(value, str), (
            f'{where}: {type(value).__name__} vs a sequence (rclpy refuses numpy arrays here)')
        for item in value:
            _check(item, element, where + '[]')
        return
    if element in PY:
        assert isinstance(value, PY[element]) and not isinstance(value, np.generic), (
            f'{where}: {type(value).__name__} {value!r} vs Python {PY[element].__name__}')
    else:
        assert isinstance(value, SimpleNamespace), f'{where}: {type(value).__name__} vs message'


@pytest.fixture(scope='module')
def strict(typestore):
    from rosbags.typesys import get_types_from_msg

    for name, text in CONTROL_MSGS_DEFINITIONS.items():
        if name not in typestore.types:
            typestore.register(get_types_from_msg(text, name))

    def make(type_name, **fields):
        types = {name: _rclpy_type(desc) for name, desc in typestore.fielddefs[type_name][1]}
        values = {name: rclpy_value(value, types[name]) for name, value in fields.items()}
        for name, value in values.items():
            _check(value, types[name], f'{type_name}.{name}')
        return SimpleNamespace(**values)

    make.fielddefs = typestore.fielddefs
    return make


def test_joint_states_trajectories_and_camera_info_pass_the_checks(strict):
    state = JointState(arm='left', positions_rad=np.arange(6) * 0.1,
                       velocities_rad_s=np.zeros(6), gripper_width_m=0.06, stamp_s=1.0)
    message = joint_states_to_message([state], 1.0, strict)
    assert message.position[:2] == [0.0, 0.1] and type(message.position) is list
    trajectory = trajectory_to_message('left', np.zeros((2, 6)), np.array([0.5, 1.0]), strict)
    assert trajectory.points[1].positions == [0.0] * 6
    info = intrinsics_to_camera_info(CameraIntrinsics(640, 480, 500.0, 500.0, 320.0, 240.0),
                                     1.0, 'head_optical_frame', strict)
    assert type(info.d) is list
    assert isinstance(info.k, np.ndarray) and info.k.dtype == np.float64


def test_goals_pass_the_checks(strict):
    fields = goal_fields('move_to', {'arm': 'left', 'xyz': np.array([0.1, 0.2, 0.9]),
                                     'heading': None, 'max_tilt': 0})
    goal = strict('pyrua_msgs/action/MoveTo_Goal', **fields)
    assert goal.max_tilt == 0.0 and type(goal.max_tilt) is float
    strict('control_msgs/action/ParallelGripperCommand_Goal',
           **gripper_goal_fields('parallel', 'left', 0.05, 10.0, strict))


@pytest.mark.parametrize('type_name', ['pyrua_msgs/action/Locate_Result',
                                       'pyrua_msgs/action/MoveTo_Result',
                                       'pyrua_msgs/action/VlaRollout_Result',
                                       'sensor_msgs/msg/JointState'])
def test_numpy_values_of_every_field_type_become_accepted_values(strict, type_name):
    fields = {}
    for name, desc in strict.fielddefs[type_name][1]:
        kind, detail = desc
        if kind.name == 'BASE' and detail[0] != 'string':
            fields[name] = np.float64(1.0) if 'float' in detail[0] else np.int64(1)
            if detail[0] == 'bool':
                fields[name] = np.bool_(True)
        elif kind.name in ('SEQUENCE', 'ARRAY') and detail[0][0].name == 'BASE' and \
                detail[0][1][0] != 'string':
            size = detail[1] or 4
            fields[name] = (np.arange(size, dtype=np.int64) if 'int' in detail[0][1][0]
                            else np.linspace(0.0, 1.0, size))
    assert fields, f'{type_name} has no numeric field to check'
    strict(type_name, **fields)

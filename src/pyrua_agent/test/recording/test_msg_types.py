"""The pyrua_msgs definitions register from their files and convert our dataclasses."""

import math

import numpy as np
from pyrua_agent.recording.convert import dataclass_message, typed_message
from pyrua_agent.recording.msg_types import find_msgs_dir, load_project_types
from pyrua_primitives.conversions.interfaces import split_sections
from pyrua_primitives.perception.locate import LocateResult
from pyrua_primitives.results import GripperResult, MoveResult
import pytest

ACTION = """# goal
string name  # what
Thing thing
---
Thing[] things
float64[2] size_m
---
"""


def _package(root, action=ACTION):
    (root / 'msg').mkdir(parents=True)
    (root / 'action').mkdir()
    (root / 'msg' / 'Thing.msg').write_text('float64 x  # metres\n')
    (root / 'action' / 'Probe.action').write_text(action)
    return root


def test_action_file_splits_into_goal_result_feedback_with_package_relative_types(tmp_path):
    types = load_project_types(_package(tmp_path / 'pyrua_msgs'))
    assert types.actions == ('Probe',) and types.messages == ('Thing',)
    store = types.store
    goal_type = types.action_type('Probe', 'Goal')
    goal = typed_message(store, goal_type, {'name': 'cup', 'thing': {'x': 0.5}})
    back = store.deserialize_cdr(store.serialize_cdr(goal, goal_type), goal_type)
    assert back.name == 'cup' and back.thing.x == 0.5
    assert dict(store.fielddefs['pyrua_msgs/action/Probe_Result'][1])['things'][1][0][1] == (
        'pyrua_msgs/msg/Thing')
    assert 'pyrua_msgs/action/Probe_Feedback' in store.types  # empty, as rosidl allows
    assert types.action_type('Missing', 'Goal') is None


def test_action_without_two_separators_is_refused_naming_the_file(tmp_path):
    with pytest.raises(ValueError, match='Probe.action has 2 sections vs 3'):
        load_project_types(_package(tmp_path / 'p', action='string a\n---\nstring b\n'))
    with pytest.raises(ValueError, match='vs 3'):
        split_sections('string a\n', 'action')


def test_msgs_dir_comes_from_the_environment_first(tmp_path, monkeypatch):
    root = _package(tmp_path / 'pyrua_msgs')
    monkeypatch.setenv('PYRUA_MSGS_DIR', str(root))
    assert find_msgs_dir() == root
    monkeypatch.setenv('PYRUA_MSGS_DIR', str(tmp_path / 'empty'))
    share = tmp_path / 'install' / 'share'
    _package(share / 'pyrua_msgs')
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path / 'install'))
    assert find_msgs_dir() == share / 'pyrua_msgs'


def test_without_definitions_only_standard_types_are_available(tmp_path):
    types = load_project_types(tmp_path)
    assert types.actions == () and 'sensor_msgs/msg/Image' in types.store.types


@pytest.fixture(scope='module')
def project():
    types = load_project_types()
    if types.source is None:
        pytest.skip('src/pyrua_msgs has no .msg/.action files in this checkout')
    return types


def test_project_primitive_results_convert_one_to_one(project):
    store = project.store
    move = MoveResult(reached=False, reason='z below table', arm='left', target_m=(0, 0, 0),
                      final_m=(0.1, 0.2, 0.3), final_heading_rad=0.5, error_m=0.37,
                      duration_s=0.0)
    grip = GripperResult(held=True, reason='', arm='right', action='close', width_m=0.02,
                         commanded_width_m=0.0)
    locate = LocateResult(found=True, reason='', query='cup', position_m=(0.1, 0.2, None),
                          size_m=(0.04, 0.05), cameras=('head',), pixels=(321,),
                          bound_m=(0.02, 0.03, None))
    for value, action in ((move, 'MoveTo'), (grip, 'Gripper'), (locate, 'Locate')):
        msgtype = project.action_type(action, 'Result')
        message = dataclass_message(store, msgtype, value)
        assert message is not None, f'{type(value).__name__} does not map onto {msgtype}'
        back = store.deserialize_cdr(store.serialize_cdr(message, msgtype), msgtype)
        assert back.reason == value.reason
    assert math.isnan(back.position_m[2]) and math.isnan(back.bound_m[2])
    assert dataclass_message(store, project.action_type('MoveTo', 'Result'), grip) is None


def test_goal_arguments_left_at_default_none_become_nan_or_empty(project):
    store = project.store
    goal = typed_message(store, project.action_type('MoveTo', 'Goal'),
                         {'arm': 'left', 'xyz': (0.1, 0.2, 0.3)}, fill_missing=True)
    assert math.isnan(goal.heading) and np.allclose(goal.xyz, (0.1, 0.2, 0.3))
    locate = typed_message(store, project.action_type('Locate', 'Goal'),
                           {'query': 'cup', 'cameras': None}, fill_missing=True)
    assert locate.cameras == []
    assert typed_message(store, project.action_type('MoveTo', 'Goal'),
                         {'arm': 'left', 'speed': 2.0}, fill_missing=True) is None

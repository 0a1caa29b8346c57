"""The sim node's evaluator side, ROS-free: resets, status and Gazebo-style entity operations."""

import re

import numpy as np
from pyrua_sim.ros.twin_host import PARK_Y_M, TwinHost
from pyrua_sim.twin import load_twin
import pytest


@pytest.fixture
def host():
    twin = load_twin('pick_place', 0, 0)
    yield TwinHost(twin)
    twin.close()


def test_get_and_set_state_of_a_free_object(host):
    ok, message, pose = host.get_state('obj/blue_block', 'world')
    assert ok and message == '' and pose.shape == (7,)
    target = np.array([0.1, -0.1, 0.79, 1.0, 0.0, 0.0, 0.0])
    assert host.set_state('obj/blue_block', target) == (True, '')
    assert np.allclose(host.get_state('obj/blue_block')[2][:3], target[:3], atol=1e-6)


def test_unknown_entities_frames_and_fixed_objects_are_refused(host):
    ok, message, pose = host.get_state('obj/red_block')
    assert not ok and "no entity 'obj/red_block'" in message and np.isnan(pose).all()
    assert "pass '' or 'world'" in host.get_state('obj/blue_block', 'left/base_link')[1]
    ok, message = host.set_state('obj/green_bowl', np.array([0.0, 0.0, 0.8]))
    assert not ok and 'free joint' in message


def test_delete_parks_an_object_and_spawn_brings_it_back(host):
    assert host.delete('obj/blue_block') == (True, '')
    assert host.get_state('obj/blue_block')[2][1] == pytest.approx(PARK_Y_M, abs=1e-6)
    assert host.delete('obj/blue_block') == (False, "entity 'obj/blue_block' is already deleted")
    ok, message = host.spawn('obj/blue_block', '<sdf/>', np.array([0.1, 0.0, 0.79]))
    assert not ok and 'reset_task' in message
    assert host.spawn('obj/blue_block', '', np.array([0.1, 0.0, 0.79])) == (True, '')
    assert host.get_state('obj/blue_block')[2][0] == pytest.approx(0.1, abs=1e-6)
    ok, message = host.spawn('obj/blue_block', '', np.array([0.1, 0.0, 0.79]))
    assert not ok and 'was not deleted' in message


def test_reset_is_refused_during_a_motion_and_moves_to_a_new_layout(host):
    host.begin_motion()
    ok, message = host.reset('', 0, 1)
    assert not ok and '1 motion(s) running' in message
    host.end_motion()
    assert host.reset('', 0, 1) == (True, '')
    assert host.twin.layout.index == 1
    ok, message = host.reset('no_such_task', 0, 0)
    assert not ok and 'no_such_task' in message and host.twin.layout.task == 'pick_place'


def test_status_reports_the_evaluator_verdict(host):
    status = host.status()
    assert status.success is False and 0.0 <= status.score < 1.0 and status.reason


def _pose(xyz, quaternion):
    from pyrua_primitives.conversions.interfaces import rosbags_factory, rosbags_typestore

    pytest.importorskip('rosbags.typesys', reason='rosbags: see requirements/test.txt')
    make = rosbags_factory(rosbags_typestore())
    w, x, y, z = quaternion
    return make('geometry_msgs/msg/Pose',
                position=make('geometry_msgs/msg/Point', x=xyz[0], y=xyz[1], z=xyz[2]),
                orientation=make('geometry_msgs/msg/Quaternion', x=x, y=y, z=z, w=w))


@pytest.mark.parametrize('quaternion, xyz, message', [
    ((0.0, 0.0, 0.0, 0.0), (0.1, 0.0, 0.79), r'orientation \(0, 0, 0, 0\) is not a rotation'),
    ((1.0, 0.0, 0.0, 0.0), (0.1, float('nan'), 0.79), 'has NaN or inf'),
])
def test_a_bad_requested_pose_is_a_failed_answer_not_an_exception(host, quaternion, xyz,
                                                                  message):
    ok, text = host.set_state_from_message('obj/blue_block', _pose(xyz, quaternion))
    assert not ok and text.startswith("set_entity_state('obj/blue_block'): ")
    assert re.search(message, text)
    assert host.delete('obj/blue_block') == (True, '')
    ok, text = host.spawn_from_message('obj/blue_block', '', _pose(xyz, quaternion))
    assert not ok and text.startswith("spawn_entity('obj/blue_block'): ")


def test_a_unit_quaternion_pose_is_applied(host):
    pose = _pose((0.1, -0.1, 0.79), (1.0, 0.0, 0.0, 0.0))
    assert host.set_state_from_message('obj/blue_block', pose) == (True, '')

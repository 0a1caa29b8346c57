"""The world 'ros' is a name in the world registry; without ROS it refuses, saying what to do."""

import sys

from pyrua_agent.episode import EpisodeSpec, run_episode_spec
from pyrua_agent.ros.world import ROS
from pyrua_primitives.errors import MissingDependency
from pyrua_primitives.world import open_world, world_entry, world_names
import pytest

REFUSAL = (r"world 'ros' needs ROS 2 Jazzy: rclpy is not importable .*; source "
           r'/opt/ros/jazzy/setup.bash .* `ros2 launch pyrua_bringup sim.launch.py`')


@pytest.fixture
def no_ros(monkeypatch):
    """Make ``import rclpy`` fail, as on a machine without ROS 2."""
    monkeypatch.setitem(sys.modules, 'rclpy', None)


def test_ros_is_a_registered_world_whose_entry_imports_no_ros():
    assert 'ros' in world_names()
    entry = world_entry('ros')  # the ROS tests re-import ros/ modules: compare by origin
    assert (entry.name, entry.opener.__module__, entry.opener.__name__) == (
        ROS.name, 'pyrua_agent.ros.world', 'open_ros_world')
    assert ROS.owns('pick_place') is False  # the task -> world rule still picks the twin


def test_opening_ros_without_rclpy_refuses_with_what_to_do(no_ros):
    spec = EpisodeSpec(task='pick_place', world='ros', record=False)
    with pytest.raises(MissingDependency, match=REFUSAL):
        open_world('ros', spec)
    with pytest.raises(MissingDependency, match=REFUSAL):
        run_episode_spec(spec)  # the one episode assembly every user path calls

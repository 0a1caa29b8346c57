"""The ROS station, without ROS: it implements the whole Station protocol; its calibration."""

import ast
import inspect
from pathlib import Path

import numpy as np
from pyrua_primitives.ros.config import RosStationConfig
from pyrua_primitives.station import Station
import pytest

ROS_STATION = Path(__file__).resolve().parents[2] / 'pyrua_primitives' / 'ros' / 'ros_station.py'


def _methods(path, class_name):
    tree = ast.parse(path.read_text())
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name]
    return {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}


def test_ros_station_implements_every_station_method():
    protocol = {name for name, _ in inspect.getmembers(Station, inspect.isfunction)
                if not name.startswith('_')}
    missing = protocol - _methods(ROS_STATION, 'RosStation')
    assert not missing, f'RosStation lacks Station methods {sorted(missing)}'
    assert 'home_positions_rad' in protocol


def test_home_pose_comes_from_the_calibration_per_arm():
    config = RosStationConfig(home_left_rad=(0.1, 1.0, 1.2, -1.0, 0.2, 0.0))
    np.testing.assert_allclose(config.home_positions_rad('left'), [0.1, 1.0, 1.2, -1.0, 0.2, 0.0])
    assert config.home_positions_rad('right').shape == (6,)
    with pytest.raises(ValueError, match="unknown arm 'top'"):
        config.home_positions_rad('top')


@pytest.mark.parametrize('home, message', [
    ((0.0,) * 5, 'home_left_rad=.* vs 6 finite joint angles'),
    ((0.0, 1.0, 1.0, -1.0, 0.0, float('nan')), 'vs 6 finite joint angles'),
    ((2.0, 1.0, 1.0, -1.0, 0.0, 0.0), r'joint\(s\) \[1\] outside the ARX-X5 limits'),
])
def test_a_bad_home_calibration_is_refused(home, message):
    with pytest.raises(ValueError, match=message):
        RosStationConfig(home_left_rad=home)

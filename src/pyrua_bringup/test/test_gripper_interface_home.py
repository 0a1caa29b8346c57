"""The gripper interface has one home that both the sim node and the station read."""

import ast
from pathlib import Path

from pyrua_primitives.conversions.control import DEFAULT_GRIPPER_INTERFACE
from pyrua_primitives.ros.config import RosStationConfig
from pyrua_sim.ros.config import SimNodeConfig
import pytest
import yaml

LAUNCH = Path(__file__).resolve().parents[1] / 'launch' / 'pyrua.launch.py'


def _sections():
    tree = ast.parse(LAUNCH.read_text())
    keep = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == '_sections'
            or isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', '') == 'NODES']
    namespace = {'yaml': yaml}
    exec(compile(ast.Module(body=keep, type_ignores=[]), str(LAUNCH), 'exec'), namespace)
    return namespace['_sections']


def test_the_sim_node_serves_the_interface_the_station_drives(tmp_path):
    path = tmp_path / 'gripper.yaml'
    path.write_text('primitives_node:\n  ros__parameters:\n    station:\n'
                    '      gripper_interface: gripper_command\n')
    sections = _sections()(str(path))
    assert sections['sim_node']['gripper_interface'] == 'gripper_command'
    assert sections['agent_node']['station']['gripper_interface'] == 'gripper_command'


def test_a_second_home_under_the_sim_node_is_refused(tmp_path):
    path = tmp_path / 'two_homes.yaml'
    path.write_text('sim_node:\n  ros__parameters:\n    gripper_interface: parallel\n')
    with pytest.raises(ValueError, match='one home, primitives_node.station.gripper_interface'):
        _sections()(str(path))


def test_both_defaults_are_the_one_default():
    assert SimNodeConfig().gripper_interface == RosStationConfig().gripper_interface \
        == DEFAULT_GRIPPER_INTERFACE

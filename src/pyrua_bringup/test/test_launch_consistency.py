"""
ROS name cross-checks, without ROS: launch files, entry points, YAML, actions and types.

Launch files are parsed with ``ast``, never executed. Each failure names what to fix.
"""

import ast
from pathlib import Path

from pyrua_agent.ros.config import AgentNodeConfig
from pyrua_primitives.conversions.actions import ACTIONS
from pyrua_primitives.conversions.control import CONTROL_MSGS_DEFINITIONS
from pyrua_primitives.conversions.interfaces import interface_definitions
from pyrua_primitives.registry import ACTION_TYPES
from pyrua_primitives.ros import names
from pyrua_primitives.ros.config import PrimitivesNodeConfig, RosStationConfig
from pyrua_primitives.ros.parameters import check_overrides, parameter_defaults
from pyrua_sim.ros.config import SimNodeConfig
import pytest
import yaml

BRINGUP = Path(__file__).resolve().parents[1]
SRC = BRINGUP.parent
ROOT = SRC.parent
LAUNCH_FILES = sorted((BRINGUP / 'launch').glob('*.launch.py'))
PARAM_FILES = ('replay.yaml', 'sim.yaml', 'station.yaml')
LAUNCH_SUPPLIED = {'station.yaml': {'agent_node': {'instruction': 'put the block in the bowl'}}}
"""Values a launch file requires as arguments (station.launch.py: instruction)."""
NODE_CONFIGS = {'agent_node': AgentNodeConfig, 'primitives_node': PrimitivesNodeConfig,
                'sim_node': SimNodeConfig}
NODE_MODULES = {node: SRC / package / package / 'ros' / f'{node}.py'
                for node, package in (('agent_node', 'pyrua_agent'),
                                      ('primitives_node', 'pyrua_primitives'),
                                      ('sim_node', 'pyrua_sim'))}
ROS_MODULES = sorted(p for pkg in ('pyrua_primitives', 'pyrua_sim', 'pyrua_agent')
                     for p in (SRC / pkg / pkg / 'ros').glob('*.py'))


def _tree(path):
    return ast.parse(path.read_text(), filename=str(path))


def _calls(tree, func_name):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, 'id', '')
            if name == func_name:
                yield node


def _keywords(call):
    return {k.arg: k.value for k in call.keywords}


def _module_constant(tree, name):
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, 'id', '') == name
                                                for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f'no module constant {name}')


def _entry_points(package):
    tree = _tree(SRC / package / 'setup.py')
    for call in _calls(tree, 'setup'):
        scripts = ast.literal_eval(_keywords(call)['entry_points'])['console_scripts']
        return dict(s.replace(' ', '').split('=') for s in scripts)
    raise AssertionError(f'{package}/setup.py has no setup() call')


def _launched_nodes():
    for path in LAUNCH_FILES:
        for call in _calls(_tree(path), 'Node'):
            kw = _keywords(call)
            yield path.name, *(ast.literal_eval(kw[k]) for k in ('package', 'executable', 'name'))


def test_every_launched_executable_is_an_entry_point_named_like_its_node():
    launched = list(_launched_nodes())
    assert {n for *_, n in launched} == set(NODE_CONFIGS)
    for launch, package, executable, name in launched:
        points = _entry_points(package)
        assert executable in points, (f'{launch} runs {package}/{executable}; add '
                                      f"'{executable} = ...:main' to {package}/setup.py")
        assert name == executable, f'{launch}: node name {name} vs executable {executable}'
        module = points[executable].split(':')[0]
        assert (SRC / package / (module.replace('.', '/') + '.py')) == NODE_MODULES[name]


@pytest.mark.parametrize('node', sorted(NODE_MODULES))
def test_each_node_class_takes_the_node_name_and_has_a_jazzy_main(node):
    tree = _tree(NODE_MODULES[node])
    supers = [c for c in _calls(tree, '__init__')
              if c.args and isinstance(c.args[0], ast.Constant)]
    assert [c.args[0].value for c in supers] == [node]
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == 'main')
    assert [a.arg for a in main.args.args] == ['args']
    init = next(_calls(main, 'init'))
    assert [k.arg for k in init.keywords] == ['args'] and not init.args, (
        'rclpy.init is keyword-only: rclpy.init(args=args)')
    assert list(_calls(main, 'try_shutdown')), 'finish main with rclpy.try_shutdown()'


def test_launch_overrides_are_declared_parameters_of_matching_type():
    tree = _tree(BRINGUP / 'launch' / 'pyrua.launch.py')
    casts = {'int': int, 'str': str}
    for table, cls in (('AGENT_OVERRIDES', AgentNodeConfig), ('SIM_OVERRIDES', SimNodeConfig)):
        defaults = parameter_defaults(cls)
        for argument, (parameter, kind) in _module_constant(tree, table).items():
            assert parameter in defaults, f'{table}[{argument!r}] names no parameter {parameter}'
            assert type(defaults[parameter]) is casts[kind], (
                f'{table}[{argument!r}]: {kind} vs declared {type(defaults[parameter]).__name__}')
    nodes = _module_constant(tree, 'NODES')
    assert set(nodes) == set(NODE_CONFIGS)


def test_included_launch_arguments_are_declared_by_the_included_file():
    shared = _tree(BRINGUP / 'launch' / 'pyrua.launch.py')
    declared = {ast.literal_eval(c.args[0]) for c in _calls(shared, 'DeclareLaunchArgument')
                if isinstance(c.args[0], ast.Constant)}
    declared |= set(_module_constant(shared, 'AGENT_OVERRIDES'))
    for path in LAUNCH_FILES:
        if path.name == 'pyrua.launch.py':
            continue
        tree = _tree(path)
        include = next(_calls(tree, 'IncludeLaunchDescription'))
        arguments = _keywords(include)['launch_arguments'].func.value
        passed = {ast.literal_eval(k) for k in arguments.keys if k is not None}
        passed |= set(_module_constant(tree, 'PASSED')) if 'PASSED' in path.read_text() else set()
        assert passed <= declared, f'{path.name} passes undeclared {sorted(passed - declared)}'


@pytest.mark.parametrize('filename', PARAM_FILES)
def test_yaml_keys_are_node_names_and_parameters_of_their_config(filename):
    tree = yaml.safe_load((BRINGUP / 'config' / filename).read_text())
    assert set(tree) <= set(NODE_CONFIGS), f'{filename}: {set(tree) - set(NODE_CONFIGS)}'
    for node, section in tree.items():
        assert list(section) == ['ros__parameters'], f'{filename}: {node} needs ros__parameters'
        problems = check_overrides(NODE_CONFIGS[node], section['ros__parameters'])
        assert not problems, f'{filename} {node}:\n' + '\n'.join(problems)


def _launch_sections():
    """Return ``pyrua.launch.py``'s own ``_sections`` (how launch reads a YAML file)."""
    tree = _tree(BRINGUP / 'launch' / 'pyrua.launch.py')
    keep = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == '_sections'
            or isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', '') == 'NODES']
    namespace = {'yaml': yaml}
    exec(compile(ast.Module(body=keep, type_ignores=[]), 'pyrua.launch.py', 'exec'), namespace)
    return namespace['_sections']


@pytest.mark.parametrize('filename', PARAM_FILES)
def test_yaml_values_build_valid_configs(filename):
    from pyrua_primitives.ros.parameters import config_from_values, flatten

    sections = _launch_sections()(str(BRINGUP / 'config' / filename))
    for node, section in sections.items():
        values = {**parameter_defaults(NODE_CONFIGS[node]), **flatten(section),
                  **LAUNCH_SUPPLIED.get(filename, {}).get(node, {})}
        config_from_values(NODE_CONFIGS[node], values)


@pytest.mark.parametrize('filename', PARAM_FILES)
def test_station_settings_have_one_home_that_the_agent_node_reads_too(filename):
    from pyrua_primitives.ros.parameters import config_from_values, flatten

    tree = yaml.safe_load((BRINGUP / 'config' / filename).read_text())
    assert 'station' not in tree['agent_node']['ros__parameters'], filename
    sections = _launch_sections()(str(BRINGUP / 'config' / filename))
    assert sections['agent_node'].get('station') == sections['primitives_node'].get('station')
    configs = {node: config_from_values(NODE_CONFIGS[node], {
        **parameter_defaults(NODE_CONFIGS[node]), **flatten(sections[node]),
        **LAUNCH_SUPPLIED.get(filename, {}).get(node, {})}).station
        for node in ('agent_node', 'primitives_node')}
    assert configs['agent_node'] == configs['primitives_node']
    assert configs['agent_node'].table_height_m == 0.765


def test_launch_refuses_station_settings_under_the_agent_node(tmp_path):
    path = tmp_path / 'two_homes.yaml'
    path.write_text('agent_node:\n  ros__parameters:\n    station:\n      table_height_m: 0.7\n'
                    'primitives_node:\n  ros__parameters:\n    station:\n'
                    '      table_height_m: 0.765\n')
    with pytest.raises(ValueError, match='one home, primitives_node.station'):
        _launch_sections()(str(path))
    path.write_text('primitives_node:\n  ros__parameters:\n    station:\n'
                    '      table_height_m: 0.7\n')
    assert _launch_sections()(str(path))['agent_node'] == {'station': {'table_height_m': 0.7}}


def test_prices_file_loads_as_a_price_table():
    from pyrua_agent.accounting import PriceTable

    table = PriceTable.load(BRINGUP / 'config' / 'prices.yaml')
    assert 'local-model' in table.models


def test_setup_installs_launch_and_config_files():
    text = (BRINGUP / 'setup.py').read_text()
    assert "glob('launch/*.launch.py')" in text and "glob('config/*.yaml')" in text
    cfg = (BRINGUP / 'setup.cfg').read_text()
    assert 'script_dir=$base/lib/pyrua_bringup' in cfg


def test_every_primitive_action_client_is_served():
    from pyrua_primitives.library import PrimitiveLibrary

    primitives = set(PrimitiveLibrary.__dict__)
    offered = {ACTIONS[p].name for p in ACTIONS if p in primitives}
    assert offered >= {'Locate', 'MoveTo', 'Gripper'}
    for action in offered:
        assert names.action_name(action) == ACTION_TYPES[action].ros_name
    server = _tree(NODE_MODULES['primitives_node'])
    client = _tree(SRC / 'pyrua_agent/pyrua_agent/ros/action_transport.py')
    for tree, kind in ((server, 'ActionServer'), (client, 'ActionClient')):
        (call,) = _calls(tree, kind)
        assert ast.unparse(call.args[2]).startswith('action_name('), (
            f'{kind} must take its name from names.action_name')


def test_controller_and_sensor_interfaces_match_between_station_and_sim():
    station = RosStationConfig()
    assert station.trajectory_action == names.TRAJECTORY_ACTION
    assert station.gripper_action == names.GRIPPER_ACTION
    assert station.joint_states_topic == names.JOINT_STATES
    assert station.image_topic == names.IMAGE_TOPIC
    assert station.camera_info_topic == names.CAMERA_INFO_TOPIC
    assert station.camera_frame == names.CAMERA_FRAME and station.base_frame == names.BASE_FRAME
    sim = ast.unparse(_tree(NODE_MODULES['sim_node']))
    for name in ('TRAJECTORY_ACTION', 'GRIPPER_ACTION', 'JOINT_STATES', 'IMAGE_TOPIC',
                 'CAMERA_INFO_TOPIC', 'CAMERA_FRAME', 'BASE_FRAME', 'RESET_TASK', 'TASK_STATUS',
                 'GET_ENTITY_STATE', 'SET_ENTITY_STATE', 'SPAWN_ENTITY', 'DELETE_ENTITY',
                 'CLOCK'):
        assert f'names.{name}' in sim, f'sim_node must serve names.{name}'
    agent = ast.unparse(_tree(NODE_MODULES['agent_node']))
    assert 'RESET_TASK' in agent and 'TASK_STATUS' in agent


def _type_strings():
    import re

    pattern = re.compile(r'^[a-z][a-z0-9_]*/(msg|srv|action)/[A-Z][A-Za-z0-9_]*$')
    conversions = sorted((SRC / 'pyrua_primitives/pyrua_primitives/conversions').glob('*.py'))
    for path in [*ROS_MODULES, *conversions]:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if pattern.match(node.value):
                    yield path.name, node.value


def test_every_message_type_used_is_defined():
    from rosbags.typesys import get_typestore, Stores

    store = get_typestore(Stores.ROS2_JAZZY).types
    ours = interface_definitions()
    used = set(_type_strings())
    assert ('images.py', 'sensor_msgs/msg/Image') in used
    for where, type_name in sorted(used):
        if type_name.startswith('pyrua_msgs/'):
            assert type_name in ours or f'{type_name}_Goal' in ours or \
                f'{type_name}_Request' in ours, f'{where} uses undefined {type_name}'
        elif type_name == 'rosbag2_interfaces/srv/Resume':
            # rosbags ships no rosbag2 services; ros2/rosbag2 rosbag2_interfaces/srv/
            # Resume.srv (the player's ~/resume): a request with only defaults is sent
            assert where == 'player_gate.py', f'{where} uses {type_name}'
        elif type_name.startswith('control_msgs/'):
            # rosbags ships no control_msgs; conversions.control holds the definitions
            assert type_name in CONTROL_MSGS_DEFINITIONS, f'{where} uses undefined {type_name}'
        else:
            assert type_name in store, f'{where} uses {type_name}, not a Jazzy type'
    for spec in ACTIONS.values():
        for part in ('Goal', 'Result', 'Feedback'):
            assert spec.type_name(part) in ours


def test_ros_modules_compile():
    assert ROS_MODULES
    for path in ROS_MODULES:
        compile(path.read_text(), str(path), 'exec')


def test_docker_requirements_cover_every_pip_dependency():
    wanted = set()
    for package in ('pyrua_primitives', 'pyrua_sim', 'pyrua_agent', 'pyrua_local',
                    'pyrua_lab'):
        for call in _calls(_tree(SRC / package / 'setup.py'), 'setup'):
            for requirement in ast.literal_eval(_keywords(call)['install_requires']):
                name = requirement.split(';')[0]
                for sep in '<>=!~[':
                    name = name.split(sep)[0]
                # workspace packages: colcon builds them
                if name not in ('setuptools', 'pyrua_primitives', 'pyrua_sim', 'pyrua_agent',
                                'pyrua_local', 'pyrua_lab'):
                    wanted.add(name.strip().lower())
    lines = (ROOT / 'docker' / 'requirements.txt').read_text().splitlines()
    listed = set()
    for line in lines:
        line = line.split('#')[0].strip()
        for sep in '<>=!~[':
            line = line.split(sep)[0]
        if line:
            listed.add(line.lower())
    assert wanted <= listed, f'add {sorted(wanted - listed)} to docker/requirements.txt'

"""
The PyRUA node set, shared by sim, station and replay: sim node (optional), primitives, agent.

``primitives:=false`` (the replay) leaves the primitives node out: the replaying agent node
runs every primitive itself (``pyrua_agent.replay.played_world``); its station section
stays ``primitives_node.station`` all the same.

All nodes run in one namespace (``pyrua``: ``/pyrua/locate``, ``/pyrua/reset_task``); their
parameters come from one YAML file with one section per node name. Each node gets its own
section as a parameter dict: rclpy matches a file's node keys only exactly or as ``/**``,
so a plain ``sim_node:`` key would not reach ``/pyrua/sim_node``. The station settings have
one home, ``primitives_node.station`` (the node that drives the station); the agent node,
whose own ROS station reads the same joints, cameras and TF and states the table height in
the prompt, gets that section too, and a file that sets ``agent_node.station`` is refused.
The sim node serves the gripper action ``primitives_node.station.gripper_interface`` names
(a file that sets ``sim_node.gripper_interface`` is refused), so the twin always speaks the
interface the station drives.
The agent's launch arguments override single YAML values only when given (empty keeps the
file's value); the launch ends when the agent's episode ends.
"""

from launch import LaunchContext, LaunchDescription
from launch.actions import DeclareLaunchArgument, GroupAction, OpaqueFunction, Shutdown
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node, PushRosNamespace, SetParameter
import yaml

NODES = ('agent_node', 'primitives_node', 'sim_node')
"""Node names; the YAML file's top-level keys."""

AGENT_OVERRIDES = {
    'task': ('task', 'str'),
    'seed': ('seed', 'int'),
    'layout': ('layout', 'int'),
    'instruction': ('instruction', 'str'),
    'planner': ('planner', 'str'),
    'source': ('source', 'str'),
    'model': ('endpoint.model', 'str'),
    'base_url': ('endpoint.base_url', 'str'),
    'record_dir': ('record_dir', 'str'),
    'replay_bag': ('replay_bag', 'str'),
}
"""Launch argument -> (agent_node parameter, type)."""
SIM_OVERRIDES = {
    'task': ('task', 'str'),
    'seed': ('seed', 'int'),
    'layout': ('layout', 'int'),
}
"""Launch argument -> (sim_node parameter, type)."""
CASTS = {'int': int, 'str': str}
BOOLS = {'true': True, 'false': False}


def _flag(context: LaunchContext, name: str) -> bool:
    text = LaunchConfiguration(name).perform(context).strip().lower()
    if text not in BOOLS:
        raise ValueError(f"launch argument {name}:={text!r} vs 'true' or 'false'")
    return BOOLS[text]


def _overrides(context: LaunchContext, table: dict) -> dict:
    values = {}
    for argument, (parameter, kind) in table.items():
        text = LaunchConfiguration(argument).perform(context)
        if text != '':
            values[parameter] = CASTS[kind](text)
    return values


def _sections(path: str) -> dict:
    with open(path) as stream:
        tree = yaml.safe_load(stream) or {}
    unknown = sorted(set(tree) - set(NODES))
    if unknown:
        raise ValueError(f'{path}: top-level keys {unknown} vs node names {list(NODES)}')
    sections = {node: dict(tree.get(node, {}).get('ros__parameters', {})) for node in NODES}
    if 'station' in sections['agent_node']:
        raise ValueError(f'{path}: agent_node.station vs none; the station settings have one '
                         'home, primitives_node.station, which agent_node gets too: move them')
    if 'station' in sections['primitives_node']:
        sections['agent_node']['station'] = sections['primitives_node']['station']
    if 'gripper_interface' in sections['sim_node']:
        raise ValueError(f'{path}: sim_node.gripper_interface vs none; the gripper interface '
                         'has one home, primitives_node.station.gripper_interface, which the '
                         'sim node serves: move it')
    interface = sections['primitives_node'].get('station', {}).get('gripper_interface')
    if interface is not None:
        sections['sim_node']['gripper_interface'] = interface
    return sections


def _nodes(context: LaunchContext) -> list:
    sections = _sections(LaunchConfiguration('config').perform(context))
    ros_arguments = ['--log-level', LaunchConfiguration('log_level').perform(context)]
    actions = []
    if _flag(context, 'sim'):
        # The sim node is the clock source (/clock): it always runs on wall time.
        actions.append(Node(package='pyrua_sim', executable='sim_node', name='sim_node',
                            parameters=[sections['sim_node'],
                                        _overrides(context, SIM_OVERRIDES)],
                            ros_arguments=ros_arguments, output='screen'))
    actions.append(SetParameter(name='use_sim_time', value=_flag(context, 'use_sim_time')))
    if _flag(context, 'primitives'):
        actions.append(Node(package='pyrua_primitives', executable='primitives_node',
                            name='primitives_node', parameters=[sections['primitives_node']],
                            ros_arguments=ros_arguments, output='screen'))
    actions += [
        Node(package='pyrua_agent', executable='agent_node', name='agent_node',
             parameters=[sections['agent_node'], _overrides(context, AGENT_OVERRIDES)],
             ros_arguments=ros_arguments, output='screen',
             on_exit=Shutdown(reason='the agent episode ended')),
    ]
    return actions


def generate_launch_description() -> LaunchDescription:
    namespace = LaunchConfiguration('namespace')

    declare_namespace_cmd = DeclareLaunchArgument(
        'namespace', default_value='pyrua', description='Namespace of all PyRUA nodes')
    declare_config_cmd = DeclareLaunchArgument(
        'config', description='YAML parameter file with one section per node name')
    declare_sim_cmd = DeclareLaunchArgument(
        'sim', default_value='false', description='Start the MuJoCo twin (sim_node): true/false')
    declare_primitives_cmd = DeclareLaunchArgument(
        'primitives', default_value='true',
        description='Start primitives_node (false: a replay, whose agent node runs every '
                    'primitive itself): true/false')
    declare_use_sim_time_cmd = DeclareLaunchArgument(
        'use_sim_time', default_value='false',
        description='Primitives and agent nodes follow /clock: true/false')
    declare_log_level_cmd = DeclareLaunchArgument(
        'log_level', default_value='info', description='ROS log level of every node')
    declare_override_cmds = [
        DeclareLaunchArgument(name, default_value='',
                              description=f'agent_node {parameter} ({kind}); empty keeps the YAML')
        for name, (parameter, kind) in AGENT_OVERRIDES.items()]

    nodes = GroupAction([PushRosNamespace(namespace), OpaqueFunction(function=_nodes)])

    ld = LaunchDescription()
    ld.add_action(declare_namespace_cmd)
    ld.add_action(declare_config_cmd)
    ld.add_action(declare_sim_cmd)
    ld.add_action(declare_primitives_cmd)
    ld.add_action(declare_use_sim_time_cmd)
    ld.add_action(declare_log_level_cmd)
    for declare_cmd in declare_override_cmds:
        ld.add_action(declare_cmd)
    ld.add_action(nodes)
    return ld

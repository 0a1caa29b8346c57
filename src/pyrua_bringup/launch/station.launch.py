"""
A real dual-arm station: the primitives node and the agent node over the robot's driver.

Expects the driver running: ros2_control with ``left_arm_controller``/``right_arm_controller``
(FollowJointTrajectory), ``left_gripper_controller``/``right_gripper_controller``
(GripperCommand), ``/joint_states``, the cameras' ``image_raw`` + ``camera_info`` and TF
(world, arm bases, camera optical frames); names and calibration in ``config/station.yaml``.

Example::

    ros2 launch pyrua_bringup station.launch.py instruction:='put the red block in the bowl'
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.substitutions import FindPackageShare

PASSED = {
    'task': 'Task name for the record; empty keeps the YAML',
    'planner': 'code, tools, tools_on_request, script or replay; empty keeps the YAML',
    'source': 'Script (# %% file) or transcript of the script/replay planners',
    'model': 'Model name sent to the endpoint; empty keeps the YAML',
    'base_url': 'OpenAI-compatible endpoint URL; empty keeps the YAML',
    'record_dir': 'Parent directory of the episode recording; empty keeps the YAML',
}
"""Launch arguments passed through to pyrua.launch.py (agent overrides)."""


def generate_launch_description() -> LaunchDescription:
    bringup = FindPackageShare('pyrua_bringup')
    config = LaunchConfiguration('config')
    namespace = LaunchConfiguration('namespace')
    use_sim_time = LaunchConfiguration('use_sim_time')
    log_level = LaunchConfiguration('log_level')

    declare_config_cmd = DeclareLaunchArgument(
        'config', default_value=PathJoinSubstitution([bringup, 'config', 'station.yaml']),
        description='YAML parameters of primitives_node and agent_node (station calibration)')
    declare_namespace_cmd = DeclareLaunchArgument(
        'namespace', default_value='pyrua', description='Namespace of all PyRUA nodes')
    declare_use_sim_time_cmd = DeclareLaunchArgument(
        'use_sim_time', default_value='false', description='Follow /clock: true/false')
    declare_log_level_cmd = DeclareLaunchArgument(
        'log_level', default_value='info', description='ROS log level of every node')
    declare_instruction_cmd = DeclareLaunchArgument(
        'instruction', description='The task instruction given to the planner (required: a '
        'real station has no task generator)')
    declare_passed_cmds = [DeclareLaunchArgument(name, default_value='', description=text)
                           for name, text in PASSED.items()]

    nodes_cmd = IncludeLaunchDescription(
        PythonLaunchDescriptionSource(PathJoinSubstitution([bringup, 'launch',
                                                            'pyrua.launch.py'])),
        launch_arguments={
            'config': config, 'namespace': namespace, 'use_sim_time': use_sim_time,
            'log_level': log_level, 'sim': 'false',
            'instruction': LaunchConfiguration('instruction'),
            **{name: LaunchConfiguration(name) for name in PASSED},
        }.items())

    ld = LaunchDescription()
    ld.add_action(declare_config_cmd)
    ld.add_action(declare_namespace_cmd)
    ld.add_action(declare_use_sim_time_cmd)
    ld.add_action(declare_log_level_cmd)
    ld.add_action(declare_instruction_cmd)
    for declare_cmd in declare_passed_cmds:
        ld.add_action(declare_cmd)
    ld.add_action(nodes_cmd)
    return ld

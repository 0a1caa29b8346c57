"""
Replay a recorded episode: bag play, primitives node on the bag topics, replay planner.

``ros2 bag play`` plays the episode's bag; the agent re-runs the recorded cells with the
registry's replay planner (``transcript``: the transcript, an edited ``# %%`` copy from
``pyrua replay RUN --export``, or the run folder itself). Without ROS, ``pyrua replay RUN``
runs the same planner through the same assembly against the bag alone and reports every
divergence. Example::

    ros2 launch pyrua_bringup replay.launch.py bag:=runs/<episode>/bag
        transcript:=runs/<episode>/transcript.jsonl

The camera frames, joint states and TF come from the bag, recorded as a driver publishes
them (``/joint_states`` of both arms, ``/tf_static``, ``/clock``; the nodes follow its
clock). The bag starts paused; the agent node resumes it once the primitives node's and
its own station subscribe to every camera (``station.frame_queue``: each recorded frame is
kept and taken in order), so no frame is lost. Motion goals find no controller and report
so: a replay reproduces what the cells sensed (frames, joint states, locate), not motion.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess, IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.substitutions import FindPackageShare


def generate_launch_description() -> LaunchDescription:
    bringup = FindPackageShare('pyrua_bringup')
    bag = LaunchConfiguration('bag')
    transcript = LaunchConfiguration('transcript')
    rate = LaunchConfiguration('rate')
    config = LaunchConfiguration('config')
    namespace = LaunchConfiguration('namespace')
    log_level = LaunchConfiguration('log_level')
    record_dir = LaunchConfiguration('record_dir')

    declare_bag_cmd = DeclareLaunchArgument(
        'bag', description='The episode bag directory (runs/<episode>/bag)')
    declare_transcript_cmd = DeclareLaunchArgument(
        'transcript',
        description='Cells to replay: runs/<episode>/transcript.jsonl, a # %% file or the '
                    'run folder')
    declare_rate_cmd = DeclareLaunchArgument(
        'rate', default_value='1.0', description='Bag playback rate factor')
    declare_config_cmd = DeclareLaunchArgument(
        'config', default_value=PathJoinSubstitution([bringup, 'config', 'replay.yaml']),
        description='YAML parameters of primitives_node and agent_node (bag topic names)')
    declare_namespace_cmd = DeclareLaunchArgument(
        'namespace', default_value='pyrua', description='Namespace of all PyRUA nodes')
    declare_log_level_cmd = DeclareLaunchArgument(
        'log_level', default_value='info', description='ROS log level of every node')
    declare_record_dir_cmd = DeclareLaunchArgument(
        'record_dir', default_value='', description='Record the replay too; empty keeps the YAML')

    # Paused until the agent node sees every subscriber (player_resume_service): a played
    # frame nobody subscribes to yet is lost.
    play_cmd = ExecuteProcess(cmd=['ros2', 'bag', 'play', bag, '--clock', '--rate', rate,
                                   '--start-paused'],
                              output='screen')
    nodes_cmd = IncludeLaunchDescription(
        PythonLaunchDescriptionSource(PathJoinSubstitution([bringup, 'launch',
                                                            'pyrua.launch.py'])),
        launch_arguments={
            'config': config, 'namespace': namespace, 'use_sim_time': 'true',
            'log_level': log_level, 'sim': 'false', 'planner': 'replay',
            'source': transcript, 'record_dir': record_dir,
        }.items())

    ld = LaunchDescription()
    ld.add_action(declare_bag_cmd)
    ld.add_action(declare_transcript_cmd)
    ld.add_action(declare_rate_cmd)
    ld.add_action(declare_config_cmd)
    ld.add_action(declare_namespace_cmd)
    ld.add_action(declare_log_level_cmd)
    ld.add_action(declare_record_dir_cmd)
    ld.add_action(play_cmd)
    ld.add_action(nodes_cmd)
    return ld

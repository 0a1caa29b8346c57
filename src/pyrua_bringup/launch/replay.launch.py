"""
Replay a recorded episode: bag play into the agent node, which re-runs the recorded cells.

``ros2 bag play`` plays the episode's bag; the agent node re-runs the recorded cells with
the registry's replay planner (``transcript``: the transcript, an edited ``# %%`` copy from
``pyrua replay RUN --export``, or the run folder itself). Example::

    ros2 launch pyrua_bringup replay.launch.py bag:=runs/<episode>/bag
        transcript:=runs/<episode>/transcript.jsonl

The camera frames, joint states and TF come from the bag, recorded as a driver publishes
them (``/joint_states`` of both arms, ``/tf_static``, and ``/clock`` at station time, which
the nodes follow: the player adds no clock of its own). A played bag has no controller:
every primitive that moves the robot or lets its time pass (move_to, home, the gripper,
vla, wait) returns the result it returned when recorded, matched in order within its cell
as ``pyrua replay`` matches it; a changed call (another argument, another primitive) is a
``ReplayDivergence`` error in its cell, never answered. Every other primitive (locate,
pose, joints, image, show, camera_meta, back_project, reachable) runs again on the played
frames and joint states, and reads follow the recording's timeline: ``robo.pose`` after a
replayed move reads the pose read there (``pyrua_agent.replay.played_world``). The agent
node runs every primitive itself (no primitives node: two nodes would each take the
other's frames from the same played topics). The bag starts paused; the agent node
resumes it once its station subscribes to every camera (``station.frame_queue``: each
played frame and joint state is kept and taken in the recorded order), so nothing is lost.
Without ROS, ``pyrua replay RUN`` replays the same cells against the bag alone.
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
        description='YAML parameters of agent_node and its station (bag topic names)')
    declare_namespace_cmd = DeclareLaunchArgument(
        'namespace', default_value='pyrua', description='Namespace of all PyRUA nodes')
    declare_log_level_cmd = DeclareLaunchArgument(
        'log_level', default_value='info', description='ROS log level of every node')
    declare_record_dir_cmd = DeclareLaunchArgument(
        'record_dir', default_value='', description='Record the replay too; empty keeps the YAML')

    # Paused until the agent node sees every subscriber (player_resume_service): a played
    # frame nobody subscribes to yet is lost. No --clock: the bag's own /clock carries the
    # station time its stamps use; a second clock at the bag's log time would make time
    # jump back and forth (tf2 clears its buffer, /tf_static included, on each jump back).
    # replay_qos.yaml: /tf_static transient_local, as tf2 subscribes to it.
    play_cmd = ExecuteProcess(cmd=['ros2', 'bag', 'play', bag, '--rate', rate,
                                   '--start-paused', '--qos-profile-overrides-path',
                                   PathJoinSubstitution([bringup, 'config',
                                                         'replay_qos.yaml'])],
                              output='screen')
    nodes_cmd = IncludeLaunchDescription(
        PythonLaunchDescriptionSource(PathJoinSubstitution([bringup, 'launch',
                                                            'pyrua.launch.py'])),
        launch_arguments={
            'config': config, 'namespace': namespace, 'use_sim_time': 'true',
            'log_level': log_level, 'sim': 'false', 'primitives': 'false',
            'planner': 'replay', 'source': transcript, 'replay_bag': bag,
            'record_dir': record_dir,
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

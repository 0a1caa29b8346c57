"""
Settings of the primitives node and of the ROS station (ROS-free dataclasses).

Each field is one ROS parameter (see ``parameters``); the defaults match the twin's sim
node and a ros2_control driver with the standard controller names, and
``pyrua_bringup/config/*.yaml`` overrides them per deployment.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import names
from ..library import LibraryConfig

MOTION_BACKENDS = ('controller', 'moveit')


@dataclass(frozen=True, kw_only=True)
class RosStationConfig:
    """
    Where the ROS station finds the robot: topics, controller actions, frames, timeouts.

    :param joint_states_topic: ``sensor_msgs/JointState`` of both arms.
    :param joint_prefix: joint name prefix template (``'{arm}/'`` -> ``left/joint1``).
    :param trajectory_action: ``control_msgs/FollowJointTrajectory`` action per arm.
    :param gripper_action: ``control_msgs/GripperCommand`` action per arm.
    :param image_topic: ``sensor_msgs/Image`` (rgb8/bgr8) per camera.
    :param camera_info_topic: ``sensor_msgs/CameraInfo`` per camera.
    :param depth_topic: 32FC1 or 16UC1 depth image per camera, read only with ``depth``.
    :param depth: the cameras publish depth aligned with the colour image.
    :param world_frame: TF frame of the station (metres, z up).
    :param camera_frame: TF optical frame per camera (x right, y down, z forward).
    :param base_frame: TF frame of each arm's base.
    :param table_height_m: z of the table top in the world frame, metres (calibration).
    :param gripper_max_effort_n: GripperCommand max_effort, newtons.
    :param wait_timeout_s: how long to wait for a first message, a frame or a server.
    :param trajectory_margin_s: extra time allowed beyond a trajectory's last waypoint.
    :param motion_backend: ``'controller'`` (FollowJointTrajectory, default) or ``'moveit'``
        (plan with moveit_py to the last waypoint and execute).
    :param moveit_group: MoveIt planning group template per arm.
    """

    joint_states_topic: str = names.JOINT_STATES
    joint_prefix: str = names.JOINT_PREFIX
    trajectory_action: str = names.TRAJECTORY_ACTION
    gripper_action: str = names.GRIPPER_ACTION
    image_topic: str = names.IMAGE_TOPIC
    camera_info_topic: str = names.CAMERA_INFO_TOPIC
    depth_topic: str = names.DEPTH_TOPIC
    depth: bool = False
    world_frame: str = names.WORLD_FRAME
    camera_frame: str = names.CAMERA_FRAME
    base_frame: str = names.BASE_FRAME
    table_height_m: float = 0.765
    gripper_max_effort_n: float = 10.0
    wait_timeout_s: float = 5.0
    trajectory_margin_s: float = 10.0
    motion_backend: str = 'controller'
    moveit_group: str = '{arm}_arm'

    def __post_init__(self) -> None:
        if self.motion_backend not in MOTION_BACKENDS:
            raise ValueError(f'station.motion_backend {self.motion_backend!r} vs one of '
                             f'{MOTION_BACKENDS}')
        for name in ('wait_timeout_s', 'trajectory_margin_s', 'gripper_max_effort_n'):
            if getattr(self, name) <= 0:
                raise ValueError(f'station.{name}={getattr(self, name)} vs > 0')


@dataclass(frozen=True, kw_only=True)
class PrimitivesNodeConfig:
    """
    Settings of ``primitives_node``: the library, the station it drives, its executor.

    :param library: primitive library settings (segmenter, tolerances, motion, safety).
    :param station: the ROS station the primitives act through.
    :param executor_threads: MultiThreadedExecutor threads (goals, cancels, subscriptions
        and controller responses must run concurrently).
    """

    library: LibraryConfig = field(default_factory=LibraryConfig)
    station: RosStationConfig = field(default_factory=RosStationConfig)
    executor_threads: int = 6

    def __post_init__(self) -> None:
        if self.executor_threads < 3:
            raise ValueError(f'executor_threads={self.executor_threads} vs >= 3; a goal, its '
                             'cancel and the controller response must run at once')

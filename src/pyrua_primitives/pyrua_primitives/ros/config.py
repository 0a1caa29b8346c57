"""
Settings of the primitives node and of the ROS station (ROS-free dataclasses).

Each field is one ROS parameter (see ``parameters``); the defaults match the twin's sim
node and a ros2_control driver with the standard controller names, and
``pyrua_bringup/config/*.yaml`` overrides them per deployment.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import names
from ..conversions.control import check_gripper_interface, DEFAULT_GRIPPER_INTERFACE
from ..kinematics import arx_x5
from ..library import LibraryConfig
from ..station import ARM_DOF, ARMS, check_arm


@dataclass(frozen=True, kw_only=True)
class RosStationConfig:
    """
    Where the ROS station finds the robot: topics, controller actions, frames, timeouts.

    :param joint_states_topic: ``sensor_msgs/JointState`` of both arms.
    :param joint_prefix: joint name prefix template (``'{arm}/'`` -> ``left/joint1``).
    :param trajectory_action: ``control_msgs/FollowJointTrajectory`` action per arm.
    :param gripper_action: the gripper controller's action per arm.
    :param gripper_interface: ``'parallel'`` (``control_msgs/action/ParallelGripperCommand``,
        Jazzy's parallel gripper controller: position = the finger joint, half the gap) or
        ``'gripper_command'`` (``control_msgs/action/GripperCommand``: position = the gap);
        see ``conversions.control``.
    :param image_topic: ``sensor_msgs/Image`` (rgb8/bgr8) per camera.
    :param camera_info_topic: ``sensor_msgs/CameraInfo`` per camera.
    :param depth_topic: 32FC1 or 16UC1 depth image per camera, read only with ``depth``.
    :param depth: the cameras publish depth aligned with the colour image.
    :param frame_queue: subscribe to every camera at start and take the frames in the order
        they arrived, and keep every joint state message in order (a bag replay: the
        recorded frames and joint samples, by their recorded position; ``ros/frame_queue``,
        ``RosStation.played_joint_state``); False: subscribe to a camera only while a frame
        is requested, keep only the newest joint state (a live station).
    :param world_frame: TF frame of the station (metres, z up).
    :param camera_frame: TF optical frame per camera (x right, y down, z forward).
    :param base_frame: TF frame of each arm's base.
    :param table_height_m: z of the table top in the world frame, metres (calibration).
    :param gripper_max_effort_n: the gripper goal's effort limit, newtons.
    :param wait_timeout_s: how long to wait for a first message, a frame or a server.
    :param trajectory_margin_s: extra time allowed beyond a trajectory's last waypoint.
    :param home_left_rad: the left arm's calibrated ready pose, six joint angles (radians);
        ``robo.home('left')`` moves there. Default: the twin's ``home`` keyframe.
    :param home_right_rad: the same for the right arm.
    """

    joint_states_topic: str = names.JOINT_STATES
    joint_prefix: str = names.JOINT_PREFIX
    trajectory_action: str = names.TRAJECTORY_ACTION
    gripper_action: str = names.GRIPPER_ACTION
    gripper_interface: str = DEFAULT_GRIPPER_INTERFACE
    image_topic: str = names.IMAGE_TOPIC
    camera_info_topic: str = names.CAMERA_INFO_TOPIC
    depth_topic: str = names.DEPTH_TOPIC
    depth: bool = False
    frame_queue: bool = False
    world_frame: str = names.WORLD_FRAME
    camera_frame: str = names.CAMERA_FRAME
    base_frame: str = names.BASE_FRAME
    table_height_m: float = 0.765
    gripper_max_effort_n: float = 10.0
    wait_timeout_s: float = 5.0
    trajectory_margin_s: float = 10.0
    home_left_rad: tuple[float, ...] = (-0.127, 1.302, 1.504, -1.14, 0.375, -0.245)
    home_right_rad: tuple[float, ...] = (0.127, 1.302, 1.504, -1.14, -0.375, 0.245)

    def home_positions_rad(self, arm: str) -> np.ndarray:
        """Return the six joint angles of ``arm``'s ready pose (radians)."""
        return np.array(self.home_left_rad if check_arm(arm) == 'left' else self.home_right_rad,
                        dtype=float)

    def __post_init__(self) -> None:
        check_gripper_interface(self.gripper_interface)
        for name in ('wait_timeout_s', 'trajectory_margin_s', 'gripper_max_effort_n'):
            if getattr(self, name) <= 0:
                raise ValueError(f'station.{name}={getattr(self, name)} vs > 0')
        for arm in ARMS:
            name = f'home_{arm}_rad'
            q = np.asarray(getattr(self, name), dtype=float)
            if q.shape != (ARM_DOF,) or not np.all(np.isfinite(q)):
                raise ValueError(f'station.{name}={list(getattr(self, name))} vs {ARM_DOF} '
                                 'finite joint angles in radians')
            outside = [i + 1 for i in range(ARM_DOF)
                       if not arx_x5.LOWER_LIMITS_RAD[i] <= q[i] <= arx_x5.UPPER_LIMITS_RAD[i]]
            if outside:
                raise ValueError(f'station.{name} joint(s) {outside} outside the ARX-X5 limits '
                                 f'{arx_x5.LOWER_LIMITS_RAD.tolist()} .. '
                                 f'{arx_x5.UPPER_LIMITS_RAD.tolist()} rad; fix the calibration')


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

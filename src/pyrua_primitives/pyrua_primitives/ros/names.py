"""
Every ROS name the PyRUA nodes use, in one place.

Our own interfaces are RELATIVE (launch pushes the ``pyrua`` namespace: ``/pyrua/locate``).
The standard driver interfaces are ABSOLUTE, as a ros2_control driver and camera drivers
publish them, so the twin's sim node and a real station are interchangeable. Templates take
``{arm}`` ('left', 'right') or ``{camera}`` ('head', 'left_wrist', 'right_wrist').
The primitive actions' names are the one exception: each ``ActionType`` of the action type
registry (``pyrua_primitives.registry.ACTION_TYPES``) carries its own, read by
``action_name``.
"""

from pyrua_primitives.registry import action_type

RESET_TASK = 'reset_task'
TASK_STATUS = 'task_status'
"""Sim node services (relative: ``/pyrua/reset_task``), evaluator side."""

GET_ENTITY_STATE = '/get_entity_state'
SET_ENTITY_STATE = '/set_entity_state'
SPAWN_ENTITY = '/spawn_entity'
DELETE_ENTITY = '/delete_entity'
"""Gazebo-style entity services (gazebo_msgs/srv types) served by the sim node."""

JOINT_STATES = '/joint_states'
CLOCK = '/clock'
TRAJECTORY_ACTION = '/{arm}_arm_controller/follow_joint_trajectory'
GRIPPER_ACTION = '/{arm}_gripper_controller/gripper_cmd'
IMAGE_TOPIC = '/{camera}/image_raw'
CAMERA_INFO_TOPIC = '/{camera}/camera_info'
DEPTH_TOPIC = '/{camera}/depth/image_raw'
"""Standard driver interfaces (ros2_control controllers, camera drivers)."""

WORLD_FRAME = 'world'
CAMERA_FRAME = '{camera}_optical_frame'
BASE_FRAME = '{arm}/base_link'
JOINT_PREFIX = '{arm}/'
"""TF frames (optical convention for cameras, REP 103) and the joint name prefix."""


def action_name(action: str) -> str:
    """
    Return the relative action name of an action type (its ``ActionType.ros_name``).

    :raises KeyError: for an action type that is not registered, listing those that are.
    """
    return action_type(action).ros_name

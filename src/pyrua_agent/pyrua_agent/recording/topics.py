"""
The one table of topic names and message types an episode bag uses.

Metadata channels (episode, cells, LLM calls, primitive goals and results, camera and joint
sample metadata) are ``std_msgs/msg/String`` holding one JSON object each. ``pyrua_msgs``
defines the typed primitive actions but no message for these records, and JSON keeps them
readable in Foxglove and by any ROS tool. Every JSON object has an integer ``cell`` key:
0 before the first cell, ``k`` while cell ``k`` runs (1-based, as ``CellResult.index``),
and the number of cells run in the episode end record.

When ``pyrua_msgs`` defines ``EpisodeEvent``, ``CellRecord`` and ``LlmCall``, a typed twin
of the episode, cell and LLM call records goes on ``/pyrua/episode/event``,
``/pyrua/cell/record`` and ``/pyrua/llm/call/record`` for ROS tools (plots, ``ros2 topic
echo``). The JSON records stay the complete ones the reader uses: the typed messages have no
room for the resolved config, the model's reply and tool calls, cell labels, arguments as
JSON or image files.

Messages that cannot carry the cell index themselves (``sensor_msgs`` images, camera info,
joint states, ``/tf``, typed primitive goals and results) are written in one flushed group
right after a JSON record that does: a camera's ``.../meta`` record, ``/joint_states/meta``,
the JSON goal or result, the cell output (for ``/pyrua/cell/image``) or the episode start
(for the task card images). Log times are strictly increasing, so the reader joins each to
the JSON record before it.

Typed primitive goals and results (``pyrua_msgs/action/<Action>_Goal`` / ``_Result``) go on
``/pyrua/primitive/<name>/goal`` and ``.../result`` beside the JSON records, whenever the
project's ``.action`` files define the type (``PRIMITIVE_ACTIONS`` maps primitive names to
actions; see ``recording.msg_types``). A goal is typed when its arguments came by keyword;
an argument left out is the primitive's default, ``None``, written as the message rule says
(NaN for a float, empty for a list or string). A result is typed when its dataclass fields
equal the action result's fields one to one.
"""

from __future__ import annotations

from pyrua_primitives.library import PRIMITIVES

EPISODE = '/pyrua/episode'
CELL_CODE = '/pyrua/cell/code'
CELL_OUTPUT = '/pyrua/cell/output'
CELL_IMAGE = '/pyrua/cell/image'
LLM_CALL = '/pyrua/llm/call'
PRIMITIVE_GOAL = '/pyrua/primitive/goal'
PRIMITIVE_RESULT = '/pyrua/primitive/result'
EPISODE_EVENT = '/pyrua/episode/event'
CELL_RECORD = '/pyrua/cell/record'
LLM_CALL_RECORD = '/pyrua/llm/call/record'
JOINT_STATES = '/joint_states'
JOINT_STATES_META = '/joint_states/meta'
TF = '/tf'

STRING = 'std_msgs/msg/String'
IMAGE = 'sensor_msgs/msg/Image'
CAMERA_INFO = 'sensor_msgs/msg/CameraInfo'
JOINT_STATE = 'sensor_msgs/msg/JointState'
TF_MESSAGE = 'tf2_msgs/msg/TFMessage'
EPISODE_EVENT_TYPE = 'pyrua_msgs/msg/EpisodeEvent'
CELL_RECORD_TYPE = 'pyrua_msgs/msg/CellRecord'
LLM_CALL_TYPE = 'pyrua_msgs/msg/LlmCall'

WORLD_FRAME = 'world'

PRIMITIVE_ACTIONS: dict[str, tuple[str, dict[str, str]]] = {
    name: (info.action, dict(info.goal)) for name, info in PRIMITIVES.items()
    if info.action is not None}
"""Primitive name -> (pyrua_msgs action, goal fields it implies), from the registry."""

JSON_TOPICS = (EPISODE, CELL_CODE, CELL_OUTPUT, LLM_CALL, PRIMITIVE_GOAL, PRIMITIVE_RESULT,
               JOINT_STATES_META)


def camera_image(camera: str) -> str:
    """Return the raw image topic of ``camera``."""
    return f'/pyrua/camera/{camera}/image_raw'


def camera_info(camera: str) -> str:
    """Return the camera info topic of ``camera``."""
    return f'/pyrua/camera/{camera}/camera_info'


def camera_meta(camera: str) -> str:
    """Return the JSON metadata topic of ``camera`` (cell index, pose, stamp)."""
    return f'/pyrua/camera/{camera}/meta'


def optical_frame(camera: str) -> str:
    """Return the TF frame of ``camera``'s optical centre (OpenCV optical convention)."""
    return f'{camera}_optical_frame'


def primitive_goal(name: str) -> str:
    """Return the typed goal topic of primitive ``name``."""
    return f'/pyrua/primitive/{name}/goal'


def primitive_result(name: str) -> str:
    """Return the typed result topic of primitive ``name``."""
    return f'/pyrua/primitive/{name}/result'


def is_json_topic(topic: str) -> bool:
    """Return True if ``topic`` carries the JSON ``std_msgs/msg/String`` records."""
    return topic in JSON_TOPICS or (topic.startswith('/pyrua/camera/') and topic.endswith('/meta'))

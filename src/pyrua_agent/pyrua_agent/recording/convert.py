"""
Conversions between our dataclasses and numpy arrays and the ROS 2 messages of a bag.

Images are ``sensor_msgs/msg/Image`` rgb8; camera models become ``CameraInfo`` (K from the
intrinsics, no distortion: the twin's cameras are ideal pinholes) plus a ``/tf`` transform
``world`` -> ``<camera>_optical_frame``. A joint state becomes one ``JointState`` with names
``<arm>/joint1..6`` and ``<arm>/gripper`` (position = width in metres; its velocity is NaN,
since the station does not measure it). Result dataclasses convert to a typed message when
their field names equal the message's, one to one.
"""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses
import json
import math
from typing import Any

import numpy as np
from pyrua_primitives.station import CameraFrame, CameraModel, JointState
from rosbags.interfaces import Nodetype

from . import topics

MAX_JSON_ARRAY = 256
MAX_JSON_ITEMS = 4096
MAX_JSON_DEPTH = 32
_NUMPY_DTYPES = {'bool': np.bool_, 'byte': np.uint8, 'char': np.uint8, 'octet': np.uint8}


def stamp(store: Any, seconds: float) -> Any:
    """Return a ``builtin_interfaces/msg/Time`` for ``seconds`` (>= 0)."""
    time_type = store.types['builtin_interfaces/msg/Time']
    nanoseconds = max(0, int(round(seconds * 1e9)))
    return time_type(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def header(store: Any, seconds: float, frame_id: str) -> Any:
    """Return a ``std_msgs/msg/Header``."""
    return store.types['std_msgs/msg/Header'](stamp=stamp(store, seconds), frame_id=frame_id)


def json_message(store: Any, payload: Mapping[str, Any]) -> Any:
    """Return a ``std_msgs/msg/String`` holding ``payload`` as JSON (NaN written as null)."""
    return store.types[topics.STRING](data=json.dumps(plain(payload), allow_nan=False))


def plain(value: Any, _depth: int = 0) -> Any:
    """
    Return ``value`` as JSON types: dataclasses, tuples, numpy values; NaN and inf as None.

    A numpy array of more than ``MAX_JSON_ARRAY`` elements (an image) or rows (a
    zero-byte ``(3_000_000, 0)`` array), or of a non-numeric dtype, becomes
    ``{'ndarray': {'shape': [...], 'dtype': '...'}}``: it is never expanded element by
    element, and its pixels are recorded as frames.
    A list, tuple or mapping of more than ``MAX_JSON_ITEMS`` items becomes
    ``{'summary': 'list of N items'}``, and anything nested deeper than ``MAX_JSON_DEPTH``
    levels (a structure that contains itself included) ``{'summary': 'nested deeper ...'}``,
    so a record stays small and its writing never recurses without bound.
    Any other object becomes its repr.
    """
    if isinstance(value, (dict, list, tuple, Mapping)) or (
            dataclasses.is_dataclass(value) and not isinstance(value, type)):
        if _depth >= MAX_JSON_DEPTH:
            return {'summary': f'{type(value).__name__} nested deeper than {MAX_JSON_DEPTH} '
                               'levels, not recorded'}
        if not dataclasses.is_dataclass(value) and len(value) > MAX_JSON_ITEMS:
            return {'summary': f'{type(value).__name__} of {len(value)} items, over '
                               f'{MAX_JSON_ITEMS}: not recorded'}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name), _depth + 1)
                for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): plain(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        if value.size > MAX_JSON_ARRAY or _nested_lists(value.shape) > MAX_JSON_ARRAY or (
                value.dtype.kind not in 'biuf'):
            return {'ndarray': {'shape': list(value.shape), 'dtype': str(value.dtype)}}
        return plain(value.tolist(), _depth)
    if isinstance(value, (list, tuple)):
        return [plain(v, _depth + 1) for v in value]
    if isinstance(value, np.generic):
        return plain(value.item(), _depth)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    try:
        return repr(value)
    except RecursionError:
        return f'<{type(value).__name__} nested too deeply to show>'
    except Exception as exc:  # a repr that fails is still a value to record
        return f'<{type(value).__name__} whose repr failed: {type(exc).__name__}>'


def _nested_lists(shape: tuple[int, ...]) -> int:
    """Return how many lists ``tolist()`` would build for ``shape`` (zero-size rows too)."""
    count, rows = 0, 1
    for n in shape[:-1]:
        rows *= n
        count += rows
        if count > MAX_JSON_ARRAY:
            break
    return count


def image_message(store: Any, rgb: np.ndarray, seconds: float, frame_id: str) -> Any:
    """
    Return an rgb8 ``sensor_msgs/msg/Image``.

    :raises ValueError: for anything but an H x W x 3 uint8 array.
    """
    array = np.asarray(rgb)
    if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
        raise ValueError(f'image has shape {array.shape} dtype {array.dtype} vs H x W x 3 '
                         'uint8; record CameraFrame.rgb')
    height, width = array.shape[:2]
    return store.types[topics.IMAGE](
        header=header(store, seconds, frame_id), height=height, width=width, encoding='rgb8',
        is_bigendian=0, step=width * 3,
        data=np.ascontiguousarray(array).reshape(-1))


def image_pixels(message: Any) -> np.ndarray:
    """
    Return the H x W x 3 uint8 pixels of an rgb8 or bgr8 ``Image`` message.

    :raises ValueError: for another encoding.
    """
    if message.encoding not in ('rgb8', 'bgr8'):
        raise ValueError(f'image encoding {message.encoding!r} vs rgb8 or bgr8; only colour '
                         'images are recorded')
    rows = np.asarray(message.data, np.uint8).reshape(message.height, message.step)
    pixels = rows[:, :message.width * 3].reshape(message.height, message.width, 3)
    return pixels[..., ::-1].copy() if message.encoding == 'bgr8' else pixels.copy()


def camera_info_message(store: Any, model: CameraModel, seconds: float) -> Any:
    """Return the ``sensor_msgs/msg/CameraInfo`` of ``model`` (ideal pinhole, no distortion)."""
    intr = model.intrinsics
    k = intr.matrix.reshape(-1).astype(np.float64)
    p = np.hstack([intr.matrix, np.zeros((3, 1))]).reshape(-1).astype(np.float64)
    roi = store.types['sensor_msgs/msg/RegionOfInterest'](
        x_offset=0, y_offset=0, height=0, width=0, do_rectify=False)
    return store.types[topics.CAMERA_INFO](
        header=header(store, seconds, topics.optical_frame(model.camera)),
        height=intr.height, width=intr.width, distortion_model='plumb_bob',
        d=np.zeros(5), k=k, r=np.eye(3).reshape(-1), p=p, binning_x=0, binning_y=0, roi=roi)


def _quaternion(rotation: np.ndarray) -> tuple[float, float, float, float]:
    """Return the unit quaternion (x, y, z, w) of a 3x3 rotation matrix."""
    m = np.asarray(rotation, np.float64)
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0.0:
        s = 2.0 * math.sqrt(trace + 1.0)
        q = ((m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4)
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = (s / 4, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s)
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = ((m[0, 1] + m[1, 0]) / s, s / 4, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s)
    else:
        s = 2.0 * math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = ((m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4, (m[1, 0] - m[0, 1]) / s)
    norm = math.sqrt(sum(v * v for v in q))
    x, y, z, w = (float(v / norm) for v in q)
    return x, y, z, w


def tf_message(store: Any, model: CameraModel, seconds: float) -> Any:
    """Return a ``tf2_msgs/msg/TFMessage`` with ``world`` -> the camera's optical frame."""
    pose = np.asarray(model.world_from_camera, np.float64)
    x, y, z, w = _quaternion(pose[:3, :3])
    t = store.types
    transform = t['geometry_msgs/msg/TransformStamped'](
        header=header(store, seconds, topics.WORLD_FRAME),
        child_frame_id=topics.optical_frame(model.camera),
        transform=t['geometry_msgs/msg/Transform'](
            translation=t['geometry_msgs/msg/Vector3'](
                x=float(pose[0, 3]), y=float(pose[1, 3]), z=float(pose[2, 3])),
            rotation=t['geometry_msgs/msg/Quaternion'](x=x, y=y, z=z, w=w)))
    return t[topics.TF_MESSAGE](transforms=[transform])


def frame_messages(store: Any, frame: CameraFrame) -> dict[str, Any]:
    """Return the image, camera info and TF messages of one captured frame, by topic."""
    seconds = frame.stamp_s
    return {
        topics.camera_image(frame.camera): image_message(
            store, frame.rgb, seconds, topics.optical_frame(frame.camera)),
        topics.camera_info(frame.camera): camera_info_message(store, frame.model, seconds),
        topics.TF: tf_message(store, frame.model, seconds),
    }


def joint_state_message(store: Any, state: JointState) -> Any:
    """Return the ``sensor_msgs/msg/JointState`` of one arm (six joints and the gripper)."""
    positions = np.asarray(state.positions_rad, np.float64).reshape(-1)
    velocities = np.asarray(state.velocities_rad_s, np.float64).reshape(-1)
    names = [f'{state.arm}/joint{i + 1}' for i in range(positions.size)]
    return store.types[topics.JOINT_STATE](
        header=header(store, state.stamp_s, ''),
        name=[*names, f'{state.arm}/gripper'],
        position=np.append(positions, float(state.gripper_width_m)),
        velocity=np.append(velocities, math.nan),
        effort=np.zeros(0))


def typed_message(store: Any, msgtype: str, values: Mapping[str, Any], *,
                  fill_missing: bool = False) -> Any | None:
    """
    Return a ``msgtype`` message built from ``values``, or None when they do not match.

    The field names must equal the message's one to one; nested messages take mappings
    or dataclasses, numeric arrays take sequences. ``None`` is NaN for a float, empty for
    a string or a variable-length array.

    :param fill_missing: treat fields absent from ``values`` as ``None`` (a primitive
        argument left at its default) instead of refusing.
    """
    fielddefs = store.fielddefs[msgtype][1]
    names = {name for name, _ in fielddefs}
    if fill_missing and set(values) <= names:
        values = {name: values.get(name) for name in names}
    if names != set(values):
        return None
    try:
        kwargs = {name: _field(store, desc, values[name]) for name, desc in fielddefs}
        return store.types[msgtype](**kwargs)
    except (TypeError, ValueError):
        return None


def dataclass_message(store: Any, msgtype: str, value: Any) -> Any | None:
    """Return ``value`` (a dataclass) as a ``msgtype`` message, or None if fields differ."""
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return None
    return typed_message(store, msgtype,
                         {f.name: getattr(value, f.name) for f in dataclasses.fields(value)})


def _field(store: Any, desc: tuple, value: Any) -> Any:
    kind, detail = desc
    if kind == Nodetype.BASE:
        return _base(detail[0], value)
    if value is None and kind == Nodetype.SEQUENCE:
        value = ()
    if kind == Nodetype.NAME:
        inner = value if isinstance(value, Mapping) else {
            f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        message = typed_message(store, detail, inner)
        if message is None:
            raise ValueError(f'fields {sorted(inner)} do not match {detail}')
        return message
    sub, size = detail
    if isinstance(value, np.ndarray) and value.ndim != 1:
        # Checked before list(): a (3_000_000, 0) array would become 3 million arrays.
        raise ValueError(f'a {value.ndim}-D array of shape {value.shape} vs a 1-D sequence')
    items = [None] * size if value is None and kind == Nodetype.ARRAY else list(value)
    if kind == Nodetype.ARRAY and len(items) != size:
        raise ValueError(f'array of {len(items)} vs {size}')
    if sub[0] == Nodetype.BASE and sub[1][0] not in ('string', 'wstring'):
        name = sub[1][0]
        if name.startswith('float'):  # an unknown (None) float is NaN, as everywhere
            items = [math.nan if v is None else v for v in items]
        return np.asarray(items, dtype=_NUMPY_DTYPES.get(name, getattr(np, name)))
    return [_field(store, sub, item) for item in items]


def _base(name: str, value: Any) -> Any:
    if value is None and name.startswith('float'):
        return math.nan
    if value is None and name in ('string', 'wstring'):
        return ''
    if name in ('string', 'wstring'):
        if not isinstance(value, str):
            raise TypeError(f'{value!r} is not a string')
        return value
    if name == 'bool':
        return bool(value)
    if name.startswith('float'):
        return float(value)
    if isinstance(value, float):
        raise TypeError(f'{value!r} is not an integer')
    return int(value)

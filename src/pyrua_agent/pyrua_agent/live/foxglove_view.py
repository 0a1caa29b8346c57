"""
The live view: an episode's channels streamed to Foxglove Studio while it runs.

``FoxgloveLiveView`` has the recorder's methods (``episode_started``, ``llm_call``,
``cell``, ``frame``, ``joint_state``, ``primitive_goal``/``primitive_result``,
``episode_ended``, ``close``) and publishes what each gets on the topics the bag uses
(``recording.topics``): the JSON records as ``json`` channels with the same keys and the
cell index, camera frames as ``foxglove.RawImage`` plus ``foxglove.CameraCalibration``,
joint states as ``foxglove.JointStates``. It serves them with the Foxglove SDK's websocket
server on 127.0.0.1 (``ws://127.0.0.1:<port>``, open it in Foxglove Studio). It keeps no
history: a client sees what happens after it connects; the bag is the record.

``foxglove-sdk`` is an optional extra (``pip install 'pyrua_agent[live]'``), imported when
a view starts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import itertools
import logging
import threading
from typing import Any

import numpy as np
from pyrua_primitives.errors import MissingDependency
from pyrua_primitives.station import CameraFrame, CAMERAS, JointState

from ..recording import topics
from ..recording.convert import plain

_LOG = logging.getLogger(__name__)
DEFAULT_PORT = 8765
JSON_TOPICS = (topics.EPISODE, topics.CELL_CODE, topics.CELL_OUTPUT, topics.LLM_CALL,
               topics.PRIMITIVE_GOAL, topics.PRIMITIVE_RESULT)


def require_foxglove() -> Any:
    """
    Return the ``foxglove`` module of ``foxglove-sdk``.

    :raises MissingDependency: when it is not installed, with the pip command.
    """
    try:
        import foxglove
    except ImportError as exc:
        raise MissingDependency(
            "the live view needs foxglove-sdk vs not installed; pip install 'foxglove-sdk>=0.30' "
            "(or pip install 'pyrua_agent[live]'), or run without --foxglove") from exc
    return foxglove


def _timestamp(messages: Any, seconds: float) -> Any:
    nanoseconds = max(0, int(round(seconds * 1e9)))
    return messages.Timestamp(nanoseconds // 1_000_000_000, nanoseconds % 1_000_000_000)


class FoxgloveLiveView:
    """
    Publish one episode's channels on a Foxglove websocket server as it runs.

    :param host: address to listen on; 127.0.0.1 by default (this machine only).
    :param port: TCP port; 0 picks a free one (read it back from ``port``).
    :param name: the server name Foxglove Studio shows.
    :raises MissingDependency: when ``foxglove-sdk`` is not installed.
    """

    def __init__(self, *, host: str = '127.0.0.1', port: int = DEFAULT_PORT,
                 name: str = 'pyrua') -> None:
        self._fox = require_foxglove()
        from foxglove import channels, messages

        self._messages = messages
        self._channel_types = channels
        self._context = self._fox.Context()
        self._lock = threading.Lock()
        self._channels: dict[str, Any] = {}
        for topic in (*JSON_TOPICS, topics.JOINT_STATES_META):
            self._json_channel(topic)
        for camera in CAMERAS:
            self._json_channel(topics.camera_meta(camera))
            self._typed_channel(topics.camera_image(camera), channels.RawImageChannel)
            self._typed_channel(topics.camera_info(camera), channels.CameraCalibrationChannel)
        self._typed_channel(topics.CELL_IMAGE, channels.RawImageChannel)
        self._typed_channel(topics.JOINT_STATES, channels.JointStatesChannel)
        self._server = self._fox.start_server(name=name, host=host, port=port,
                                              context=self._context)
        self._cells_done = 0
        self._started = False
        self._goals = itertools.count(1)
        self._open_goals: dict[int, str] = {}
        self._closed = False

    def __repr__(self) -> str:
        state = 'closed' if self._closed else f'ws://127.0.0.1:{self.port}'
        return f'FoxgloveLiveView({state}, {len(self._channels)} channels)'

    def __enter__(self) -> FoxgloveLiveView:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        """Return the TCP port the server listens on."""
        return int(self._server.port)

    @property
    def advertised(self) -> tuple[str, ...]:
        """Return the topics advertised so far."""
        return tuple(self._channels)

    @property
    def current_cell(self) -> int:
        """Return the cell index new messages carry (as ``Recorder.current_cell``)."""
        return self._cells_done + 1 if self._started else 0

    def _json_channel(self, topic: str) -> Any:
        if topic not in self._channels:
            self._channels[topic] = self._fox.Channel(topic, message_encoding='json',
                                                      context=self._context)
        return self._channels[topic]

    def _typed_channel(self, topic: str, kind: Any) -> Any:
        if topic not in self._channels:
            self._channels[topic] = kind(topic, context=self._context)
        return self._channels[topic]

    def _publish(self, topic: str, payload: Mapping[str, Any]) -> None:
        with self._lock:
            if not self._closed:
                self._json_channel(topic).log(plain(payload))

    def _image(self, topic: str, rgb: np.ndarray, seconds: float, frame_id: str) -> None:
        pixels = np.ascontiguousarray(rgb, np.uint8)
        height, width = pixels.shape[:2]
        message = self._messages.RawImage(
            timestamp=_timestamp(self._messages, seconds), frame_id=frame_id, width=width,
            height=height, encoding='rgb8', step=width * 3, data=pixels.tobytes())
        with self._lock:
            if not self._closed:
                self._typed_channel(topic, self._channel_types.RawImageChannel).log(message)

    def episode_started(self, config: Mapping[str, Any], card: Any, *, seed: int,
                        layout: int, planner: str) -> None:
        """Publish the episode start record and the task card images."""
        self._publish(topics.EPISODE, {
            'cell': 0, 'event': 'start', 'task': card.task, 'seed': seed, 'layout': layout,
            'planner': planner, 'instruction': card.instruction,
            'robot_state': card.robot_state, 'config': dict(config),
            'images': [{'index': k, 'camera': camera}
                       for k, (camera, _) in enumerate(card.images, start=1)]})
        for camera, rgb in card.images:
            self._image(topics.CELL_IMAGE, rgb, 0.0, topics.optical_frame(camera))
        self._started = True

    def llm_call(self, record: Any, request_messages: Sequence[Mapping[str, Any]],
                 reply: Any | None = None) -> None:
        """Publish one model call's accounting and reply (not the history it was sent)."""
        self._publish(topics.LLM_CALL, {
            'cell': self.current_cell, 'accounting': record.to_dict(),
            'finish_reason': getattr(reply, 'finish_reason', ''),
            'content': getattr(reply, 'content', None),
            'tool_calls': [{'id': c.call_id, 'name': c.name, 'arguments': c.arguments}
                           for c in getattr(reply, 'tool_calls', ())],
            'history_messages': len(request_messages)})

    def cell(self, cell: Any, result: Any) -> None:
        """Publish one finished cell: code, output and the images it showed."""
        index = result.index
        self._publish(topics.CELL_CODE, {'cell': index, 'label': cell.label, 'code': cell.code})
        self._publish(topics.CELL_OUTPUT, {
            'cell': index, 'output': result.output, 'error': result.error,
            'stopped_reason': result.stopped_reason, 'duration_s': result.duration_s,
            'namespace_lost': result.namespace_lost,
            'images': [{'index': i.index, 'camera': i.camera, 'note': i.note,
                        'offset': i.offset} for i in result.images],
            'calls': [{'name': c.name, 'args': c.args, 'kwargs': c.kwargs,
                       'result_repr': c.result_repr, 'started_s': c.started_s,
                       'duration_s': c.duration_s} for c in result.calls]})
        for image in result.images:
            self._image(topics.CELL_IMAGE, image.pixels, 0.0, topics.optical_frame(image.camera))
        self._cells_done = max(self._cells_done, index)

    def frame(self, frame: CameraFrame) -> None:
        """Publish one captured frame: metadata, RawImage and CameraCalibration."""
        model = frame.model
        self._publish(topics.camera_meta(frame.camera), {
            'cell': self.current_cell, 'camera': frame.camera, 'stamp_s': frame.stamp_s,
            'world_from_camera': model.world_from_camera, 'intrinsics': model.intrinsics,
            'depth': frame.depth_m is not None})
        frame_id = topics.optical_frame(frame.camera)
        self._image(topics.camera_image(frame.camera), frame.rgb, frame.stamp_s, frame_id)
        k = model.intrinsics.matrix
        calibration = self._messages.CameraCalibration(
            timestamp=_timestamp(self._messages, frame.stamp_s), frame_id=frame_id,
            width=model.intrinsics.width, height=model.intrinsics.height,
            distortion_model='plumb_bob', D=[0.0] * 5, K=k.reshape(-1).tolist(),
            R=np.eye(3).reshape(-1).tolist(),
            P=np.hstack([k, np.zeros((3, 1))]).reshape(-1).tolist())
        with self._lock:
            if not self._closed:
                self._channels[topics.camera_info(frame.camera)].log(calibration)

    def joint_state(self, state: JointState) -> None:
        """Publish one arm's joint state (six joints and the gripper width in metres)."""
        self._publish(topics.JOINT_STATES_META, {'cell': self.current_cell, 'arm': state.arm,
                                                 'stamp_s': state.stamp_s})
        joints = [self._messages.JointState(name=f'{state.arm}/joint{i + 1}',
                                            position=float(q), velocity=float(v))
                  for i, (q, v) in enumerate(zip(state.positions_rad, state.velocities_rad_s,
                                                 strict=True))]
        joints.append(self._messages.JointState(name=f'{state.arm}/gripper',
                                                position=float(state.gripper_width_m)))
        message = self._messages.JointStates(
            timestamp=_timestamp(self._messages, state.stamp_s), joints=joints)
        with self._lock:
            if not self._closed:
                self._channels[topics.JOINT_STATES].log(message)

    def primitive_goal(self, name: str, args: tuple, kwargs: Mapping[str, Any]) -> int:
        """Publish a primitive call's goal; returns its goal id for ``primitive_result``."""
        with self._lock:
            goal_id = next(self._goals)
            self._open_goals[goal_id] = name
        self._publish(topics.PRIMITIVE_GOAL, {'cell': self.current_cell, 'goal_id': goal_id,
                                              'name': name, 'args': args, 'kwargs': kwargs})
        return goal_id

    def primitive_result(self, goal_id: int, result: Any, *, duration_s: float,
                         error: str | None = None) -> None:
        """Publish the result (or error) of goal ``goal_id``."""
        with self._lock:
            name = self._open_goals.pop(goal_id, '?')
        self._publish(topics.PRIMITIVE_RESULT, {
            'cell': self.current_cell, 'goal_id': goal_id, 'name': name,
            'result_repr': repr(result) if error is None else '',
            'result_type': type(result).__name__ if error is None else '',
            'fields': result if error is None else None, 'error': error,
            'duration_s': duration_s})

    def episode_ended(self, result: Any) -> None:
        """Publish the end record: end reason, success, score and the totals."""
        record = {k: v for k, v in result.to_dict().items() if k != 'cell_log'}
        self._publish(topics.EPISODE, {'cell': result.cells, 'event': 'end', **record})

    def close(self) -> None:
        """Stop the server; closing twice does nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._server.stop()

"""
Read an episode bag back into plain records: the side the report and replay use.

``read_bag`` accepts a bag directory or the run directory holding ``bag/``. A bag without
``metadata.yaml`` (its writer was killed) is repaired first (``bag_repair.repair_bag``),
so every message that reached the disk is read. Images are joined to their records the way
the recorder writes them, in one flushed group: a ``/pyrua/cell/image`` message belongs to
the episode start or cell output record before it, a camera image to the camera's ``meta``
record before it, a joint state to the ``/joint_states/meta`` record before it. A frame
captured while a primitive goal was open (between its goal and result records) carries that
goal's id, so replay can hand ``robo.image`` the very frame it returned.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
import json
import logging
import os
from pathlib import Path
from typing import Any

import numpy as np
from rosbags.highlevel import AnyReader

from . import topics
from .bag_repair import repair_bag
from .convert import image_pixels
from .msg_types import load_project_types

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RecordedFrame:
    """One captured camera frame read back, with the cell it was taken in."""

    cell: int
    camera: str
    stamp_s: float
    rgb: np.ndarray
    k: np.ndarray
    """3x3 camera matrix from ``CameraInfo``."""
    world_from_camera: np.ndarray
    """4x4 pose (OpenCV optical convention), metres."""
    goal_id: int | None = None
    """The primitive goal open when the frame was captured (None: none, e.g. the task card)."""

    def __repr__(self) -> str:
        h, w = self.rgb.shape[:2]
        return f'RecordedFrame(cell {self.cell}, {self.camera!r}, {w}x{h}, t={self.stamp_s:.3f} s)'


@dataclass(frozen=True, slots=True)
class RecordedJointState:
    """One joint state sample read back: names, positions and the cell."""

    cell: int
    arm: str
    stamp_s: float
    names: tuple[str, ...]
    positions: np.ndarray
    after_goal: int = 0
    """The last primitive goal recorded before this sample (0: none yet), for a replay."""

    def __repr__(self) -> str:
        return f'RecordedJointState(cell {self.cell}, {self.arm!r}, t={self.stamp_s:.3f} s)'


@dataclass(frozen=True, slots=True)
class BagRecording:
    """
    An episode bag read back.

    ``cells`` merge each cell's code and output records; their ``images`` entries carry
    the ``pixels``. ``start``/``end`` are None when missing (a run killed early has no end).
    """

    path: Path
    repaired: bool
    start: dict[str, Any] | None
    end: dict[str, Any] | None
    cells: tuple[dict[str, Any], ...]
    llm_calls: tuple[dict[str, Any], ...]
    goals: tuple[dict[str, Any], ...]
    results: tuple[dict[str, Any], ...]
    frames: tuple[RecordedFrame, ...]
    joint_states: tuple[RecordedJointState, ...]
    card_images: tuple[tuple[str, np.ndarray], ...] = ()
    topic_counts: dict[str, int] = field(default_factory=dict)

    def __repr__(self) -> str:
        end = self.end['end_reason'] if self.end else 'no end record'
        repaired = ', repaired' if self.repaired else ''
        return (f'BagRecording({self.path.name}, {len(self.cells)} cells, '
                f'{len(self.llm_calls)} LLM calls, {len(self.frames)} frames, {end}{repaired})')


def bag_directory(path: str | os.PathLike[str]) -> Path:
    """
    Return the bag directory for a bag or run directory.

    :raises FileNotFoundError: when ``path`` holds neither a bag nor ``bag/``.
    """
    path = Path(path)
    if (path / 'bag').is_dir():
        return path / 'bag'
    if path.is_dir() and (any(path.glob('*.mcap')) or (path / 'metadata.yaml').exists()):
        return path
    raise FileNotFoundError(f'{path} holds no rosbag2 directory (metadata.yaml or *.mcap) '
                            'and no bag/; pass a run directory or its bag')


def open_bag(path: str | os.PathLike[str]) -> tuple[Path, bool]:
    """
    Return the bag directory of ``path``, repairing it first when ``metadata.yaml`` is missing.

    :returns: ``(bag directory, repaired)``.
    """
    bag = bag_directory(path)
    if (bag / 'metadata.yaml').exists():
        return bag, False
    repair_bag(bag)
    return bag, True


def read_bag(path: str | os.PathLike[str]) -> BagRecording:
    """Read an episode bag (or run directory) into a ``BagRecording``."""
    bag, repaired = open_bag(path)
    store = load_project_types().store
    state = _Collector()
    with AnyReader([bag], default_typestore=store) as reader:
        for connection, _, raw in reader.messages(connections=reader.connections):
            state.add(connection.topic, reader.deserialize(raw, connection.msgtype))
    cells = []
    for code in state.codes:
        output = state.outputs.get(code['cell'])
        if output is not None:
            cells.append({**code, **output})
    return BagRecording(
        path=bag, repaired=repaired, start=state.start, end=state.end, cells=tuple(cells),
        llm_calls=tuple(state.llm_calls), goals=tuple(state.goals),
        results=tuple(state.results), frames=tuple(state.frames),
        joint_states=tuple(state.joints), card_images=tuple(state.card_images),
        topic_counts=dict(state.counts))


class _Collector:
    """Sorts messages into records as they come, in log time order."""

    def __init__(self) -> None:
        self.start: dict[str, Any] | None = None
        self.end: dict[str, Any] | None = None
        self.codes: list[dict[str, Any]] = []
        self.outputs: dict[int, dict[str, Any]] = {}
        self.llm_calls: list[dict[str, Any]] = []
        self.goals: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self.frames: list[RecordedFrame] = []
        self.joints: list[RecordedJointState] = []
        self.card_images: list[tuple[str, np.ndarray]] = []
        self.counts: Counter[str] = Counter()
        self._image_owner: dict[str, Any] | None = None
        self._camera_meta: dict[str, dict[str, Any]] = {}
        self._joint_meta: dict[str, Any] | None = None
        self._open_goal: int | None = None
        self._last_goal = 0

    def add(self, topic: str, message: Any) -> None:
        self.counts[topic] += 1
        if topics.is_json_topic(topic):
            self._json(topic, json.loads(message.data))
        elif topic == topics.CELL_IMAGE:
            self._cell_image(message)
        elif topic == topics.JOINT_STATES and self._joint_meta is not None:
            meta, self._joint_meta = self._joint_meta, None
            self.joints.append(RecordedJointState(
                cell=meta['cell'], arm=meta['arm'], stamp_s=meta['stamp_s'],
                names=tuple(message.name), positions=np.asarray(message.position).copy(),
                after_goal=self._last_goal))
        elif topic.startswith('/pyrua/camera/') and topic.endswith('/image_raw'):
            camera = topic.split('/')[3]
            meta = self._camera_meta.pop(camera, None)
            if meta is not None:
                intr = meta['intrinsics']
                k = np.array([[intr['fx'], 0.0, intr['cx']], [0.0, intr['fy'], intr['cy']],
                              [0.0, 0.0, 1.0]])
                self.frames.append(RecordedFrame(
                    cell=meta['cell'], camera=camera, stamp_s=meta['stamp_s'],
                    rgb=image_pixels(message), k=k,
                    world_from_camera=np.asarray(meta['world_from_camera'], np.float64),
                    goal_id=meta.get('goal_id')))

    def _json(self, topic: str, record: dict[str, Any]) -> None:
        if topic == topics.EPISODE:
            if record.get('event') == 'start':
                self.start = record
                self._image_owner = record
            else:
                self.end = record
        elif topic == topics.CELL_CODE:
            self.codes.append(record)
        elif topic == topics.CELL_OUTPUT:
            record = {**record, 'images': [dict(image) for image in record.get('images', ())]}
            self.outputs[record['cell']] = record
            self._image_owner = record
        elif topic == topics.LLM_CALL:
            self.llm_calls.append(record)
        elif topic == topics.PRIMITIVE_GOAL:
            self.goals.append(record)
            self._open_goal = record.get('goal_id')
            self._last_goal = int(record.get('goal_id') or 0)
        elif topic == topics.PRIMITIVE_RESULT:
            self.results.append(record)
            if record.get('goal_id') == self._open_goal:
                self._open_goal = None
        elif topic == topics.JOINT_STATES_META:
            self._joint_meta = record
        else:
            self._camera_meta[record['camera']] = {**record, 'goal_id': self._open_goal}

    def _cell_image(self, message: Any) -> None:
        owner = self._image_owner
        pixels = image_pixels(message)
        if owner is None:
            _LOG.warning('cell image without an episode start or cell record before it; skipped')
        elif owner is self.start:
            listed = owner.get('images', ())
            k = len(self.card_images)
            camera = listed[k]['camera'] if k < len(listed) else '?'
            self.card_images.append((camera, pixels))
        else:
            pending = [image for image in owner['images'] if 'pixels' not in image]
            if pending:
                pending[0]['pixels'] = pixels

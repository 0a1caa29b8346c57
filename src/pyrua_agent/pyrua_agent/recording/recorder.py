"""
The episode recorder: one run directory per episode with a rosbag2 bag and a transcript.

Layout of a run directory (``runs/<time>_<task>_s<seed>_l<layout>/`` by default)::

    bag/                 rosbag2 directory: bag.mcap + metadata.yaml (see recording.topics)
    transcript.jsonl     the JSONL transcript (see recording.transcript)
    images/              the images the model saw, as files the transcript references

Wiring: ``episode_started`` before ``run_episode``; ``cell`` as its ``on_cell``; the planner's
model calls through ``llm_call``; the primitive layer through the ``EpisodeObserver``
methods; ``episode_ended`` with the result; ``close`` in a ``finally`` (or use ``with``).
Every bag message carries the cell index: 0 before the first cell, ``k`` while cell ``k``
runs. Calls may come from several threads; writes are serialised.

Why one module of about 400 lines: the hooks share one lock, one cell counter and one
budget, so they stay in one class; what they write is built elsewhere (``convert``,
``budget``, ``driver_topics``, ``transcript``), and run folders come from ``run_dir``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import dataclasses
from datetime import datetime, timezone
import functools
import itertools
import logging
import os
from pathlib import Path
import threading
from typing import Any, TYPE_CHECKING

from pyrua_primitives.station import ArmBase, CameraFrame, JointState

from . import convert, topics
from .bag_writer import BagWriter, Entry
from .budget import cut_text, recorded_fields, RecordingBudget, repr_text, summary_entry
from .driver_topics import DriverTopics
from .msg_types import load_project_types, ProjectTypes
from .transcript import fingerprint, history_suffix, TranscriptWriter
from ..accounting import CallRecord
from ..llm.client import ChatReply
from ..planners.base import Cell, TaskCard
from ..runtime import CellResult
from ..runtime.values import recorded

if TYPE_CHECKING:  # the episode package imports the recorder
    from ..episode import EpisodeResult

# Hook failures kept for the end record (each is also logged).
_FAILURES_KEPT = 5

_LOG = logging.getLogger(__name__)
BAG_DIR = 'bag'


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    """Make a recording hook log and count its failure instead of raising into the episode."""

    @functools.wraps(method)
    def run(self: Recorder, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:  # whatever a hook cannot record must not end the episode
            self._failed(method.__name__, exc)
            return None

    return run


class Recorder:
    """
    Record one episode into ``run_dir`` (bag, transcript, images) as it happens.

    :param run_dir: the episode's directory; it must not exist or be empty.
    :param types: the type store; ``load_project_types()`` by default.
    :param budget: the recording's limits (bag and transcript bytes, value and text sizes);
        past them only summaries are written and the end record says so.
    :raises FileExistsError: when ``run_dir`` holds files already.

    No hook raises into the episode: what one cannot record is logged, counted and named in
    the end record (``recording``).
    """

    def __init__(self, run_dir: str | os.PathLike[str], *,
                 types: ProjectTypes | None = None,
                 budget: RecordingBudget | None = None) -> None:
        self.run_dir = Path(run_dir)
        if self.run_dir.exists() and any(self.run_dir.iterdir()):
            raise FileExistsError(f'run directory {self.run_dir} is not empty vs a fresh one '
                                  'per episode; use default_run_dir() or another --record DIR')
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.types = types if types is not None else load_project_types()
        self.bag = BagWriter(self.run_dir / BAG_DIR, self.types)
        self._driver = DriverTopics(self.types.store)  # what a ROS driver publishes
        self.budget = budget if budget is not None else RecordingBudget()
        self.transcript = TranscriptWriter(self.run_dir,
                                           budget_bytes=self.budget.transcript_bytes)
        self.bag_truncated = False
        self.failures: list[str] = []
        self._failure_count = 0
        self._lock = threading.RLock()
        self._cells_done = 0
        self._llm_calls = 0
        self._goals = itertools.count(1)
        self._open_goals: dict[int, str] = {}
        self._history: list[str] = []
        self._result_types: dict[type, str | None] = {}
        self._started = False
        self._mismatched: set[str] = set()

    def __repr__(self) -> str:
        return (f'Recorder({str(self.run_dir)!r}, {self._cells_done} cells, '
                f'{self._llm_calls} LLM calls, {self.bag.message_count} bag messages)')

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def bag_path(self) -> Path:
        """Return the bag directory."""
        return self.bag.path

    @property
    def current_cell(self) -> int:
        """
        Return the cell index new messages carry.

        0 before ``episode_started``; then one more than the cells finished, so the frames,
        goals and model calls that lead to cell ``k`` carry ``k``.
        """
        return self._cells_done + 1 if self._started else 0

    def _failed(self, hook: str, exc: BaseException) -> None:
        with self._lock:
            self._failure_count += 1
            text = cut_text(f'{hook}: {type(exc).__name__}: {repr_text(exc, 300)}', 400)
            if len(self.failures) < _FAILURES_KEPT:
                self.failures.append(text)
        _LOG.warning('recording: %s; this record is incomplete, the episode goes on', text)

    def recording_state(self) -> dict[str, Any]:
        """Return what the end record says about the recording: sizes, truncation, failures."""
        return {'truncated': self.bag_truncated or self.transcript.truncated,
                'bag_truncated': self.bag_truncated,
                'transcript_truncated': self.transcript.truncated,
                'bag_bytes': self.bag.bytes_written, 'bag_budget_bytes': self.budget.bag_bytes,
                'transcript_bytes': self.transcript.bytes_written,
                'transcript_budget_bytes': self.budget.transcript_bytes,
                'failures': self._failure_count, 'first_failures': list(self.failures)}

    def _write(self, entries: Sequence[Entry]) -> None:
        with self._lock:
            if self.bag.bytes_written > self.budget.bag_bytes:
                if not self.bag_truncated:
                    _LOG.warning('recording: the bag holds %d bytes vs bag_bytes %d; from now '
                                 'on only summaries are recorded (RecordingBudget)',
                                 self.bag.bytes_written, self.budget.bag_bytes)
                self.bag_truncated = True
                entries = [summary_entry(self.types.store, entry) for entry in entries
                           if entry[1] == topics.STRING]
            try:
                self.bag.write_group(entries)
            except Exception as exc:
                # A typed twin the bag cannot serialize (a value out of its field's range):
                # the JSON records of the group carry the data.
                self._failed('bag', exc)
                self.bag.write_group([entry for entry in entries if entry[1] == topics.STRING])

    def _json(self, topic: str, payload: Mapping[str, Any]) -> Entry:
        return (topic, topics.STRING, convert.json_message(self.types.store, payload))

    def _typed(self, topic: str, msgtype: str, values: Mapping[str, Any]) -> list[Entry]:
        """Return the typed twin of a JSON record, or nothing when the type is not defined."""
        if msgtype not in self.types.store.types:
            return []
        message = convert.typed_message(self.types.store, msgtype, values)
        if message is None:
            if msgtype not in self._mismatched:
                self._mismatched.add(msgtype)
                _LOG.warning('%s fields %s vs the record %s; its typed twin on %s is not '
                             'written (the JSON record is)', msgtype,
                             [n for n, _ in self.types.store.fielddefs[msgtype][1]],
                             sorted(values), topic)
            return []
        return [(topic, msgtype, message)]

    def _episode_event(self, event: str, record: Mapping[str, Any]) -> list[Entry]:
        fields = ('task', 'seed', 'layout', 'planner', 'instruction', 'end_reason',
                  'end_detail', 'success', 'score', 'cells', 'wall_s', 'sandbox', 'unmet')
        defaults = {'end_reason': '', 'end_detail': '', 'success': False, 'score': None,
                    'cells': 0, 'wall_s': 0.0, 'instruction': '', 'sandbox': '', 'unmet': []}
        values = {name: record.get(name, defaults.get(name)) for name in fields}
        return self._typed(topics.EPISODE_EVENT, topics.EPISODE_EVENT_TYPE,
                           {'event': event, **values})

    def _image(self, rgb: Any, seconds: float, camera: str) -> Entry:
        message = convert.image_message(self.types.store, rgb, seconds,
                                        topics.optical_frame(camera))
        return (topics.CELL_IMAGE, topics.IMAGE, message)

    @_guarded
    def episode_started(self, config: Mapping[str, Any], card: TaskCard, *, seed: int,
                        layout: int, planner: str) -> None:
        """
        Record the start: task card, resolved config and the card images.

        :param config: the fully resolved configuration (plain JSON types; no secrets).
        :param card: the task card the planner gets.
        :param seed: layout seed.
        :param layout: layout index.
        :param planner: the planner's name.
        """
        images = []
        entries = []
        for k, (camera, rgb) in enumerate(card.images, start=1):
            images.append({'index': k, 'camera': camera,
                           'file': self.transcript.save_rgb(f'card_{k}_{camera}', rgb)})
            entries.append(self._image(rgb, 0.0, camera))
        record = {'task': card.task, 'seed': seed, 'layout': layout, 'planner': planner,
                  'instruction': card.instruction, 'robot_state': card.robot_state,
                  'config': dict(config), 'images': images,
                  'started_at': datetime.now(timezone.utc).isoformat()}
        self.transcript.write('header', record)
        self._write([self._json(topics.EPISODE, {'cell': 0, 'event': 'start', **record}),
                     *self._episode_event('start', record), *entries])
        self._started = True

    @_guarded
    def llm_call(self, record: CallRecord, request_messages: Sequence[Mapping[str, Any]],
                 reply: ChatReply | None = None) -> None:
        """
        Record one counted model call: the new history messages, the reply, the accounting.

        :param record: the call's accounting (``ChatReply.record``).
        :param request_messages: the full chat history sent; only messages not stored by an
            earlier call are written to the transcript.
        :param reply: the ``ChatReply`` (content, tool calls, finish reason), if any.
        """
        with self._lock:
            self._llm_calls += 1
            call = self._llm_calls
            position, prints = history_suffix(self._history, request_messages)
            for offset, message in enumerate(request_messages[position:]):
                where = position + offset
                stored = self.transcript.message_record(message, f'call{call}_msg{where}')
                self.transcript.write('message', {'call': call, 'position': where, **stored})
            self._history = prints
            tool_calls = [{'id': c.call_id, 'name': c.name, 'arguments': c.arguments}
                          for c in (reply.tool_calls if reply is not None else ())]
            payload = {'cell': self.current_cell, 'call': call, 'accounting': record.to_dict(),
                       'finish_reason': reply.finish_reason if reply is not None else '',
                       'content': reply.content if reply is not None else None,
                       'tool_calls': tool_calls,
                       'history_messages': len(request_messages)}
            if reply is not None:
                answer = reply.message()
                self.transcript.write('message', {'call': call, 'position': len(prints),
                                                  **answer})
                self._history.append(fingerprint(answer))
            self.transcript.write('llm_call', payload)
            typed = self._typed(topics.LLM_CALL_RECORD, topics.LLM_CALL_TYPE,
                                {'cell_index': self._cells_done, **record.to_dict()})
            self._write([self._json(topics.LLM_CALL, payload), *typed])

    @_guarded
    def cell(self, cell: Cell, result: CellResult) -> None:
        """Record one finished cell; fits ``run_episode``'s ``on_cell`` hook."""
        with self._lock:
            index = result.index
            images, entries = [], []
            for image in result.images:
                images.append({'index': image.index, 'camera': image.camera, 'note': image.note,
                               'offset': image.offset,
                               'file': self.transcript.save_rgb(
                                   f'cell{index}_{image.index}_{image.camera}', image.pixels)})
                entries.append(self._image(image.pixels, 0.0, image.camera))
            limit = self.budget.value_bytes
            calls = [{'name': c.name,
                      'args': convert.plain(tuple(recorded(a, limit) for a in c.args)),
                      'kwargs': convert.plain({k: recorded(v, limit)
                                               for k, v in c.kwargs.items()}),
                      'result_repr': cut_text(str(c.result_repr), self.budget.text_chars),
                      'started_s': c.started_s, 'duration_s': c.duration_s}
                     for c in result.calls]
            record = {'index': index, 'label': cell.label, 'code': cell.code,
                      'output': result.output, 'error': result.error,
                      'stopped_reason': result.stopped_reason, 'duration_s': result.duration_s,
                      'namespace_lost': result.namespace_lost, 'images': images, 'calls': calls}
            self.transcript.write('cell', record)
            code = {'cell': index, 'label': cell.label, 'code': cell.code}
            output = {'cell': index, **{k: v for k, v in record.items() if k not in code}}
            output.pop('index')
            typed = self._typed(topics.CELL_RECORD, topics.CELL_RECORD_TYPE, {
                'index': index, 'code': cell.code, 'output': result.output,
                'images': [{'camera': i.camera, 'note': i.note, 'index': i.index,
                            'offset': i.offset} for i in result.images],
                'error': result.error or '', 'stopped_reason': result.stopped_reason or '',
                'duration_s': result.duration_s, 'namespace_lost': result.namespace_lost,
                'calls': [{'name': c.name, 'args': repr_text(c.args, self.budget.text_chars),
                           'kwargs': repr_text(c.kwargs, self.budget.text_chars),
                           'result_repr': c.result_repr, 'started_s': c.started_s,
                           'duration_s': c.duration_s} for c in result.calls]})
            self._write([self._json(topics.CELL_CODE, code),
                         self._json(topics.CELL_OUTPUT, output), *typed, *entries])
            self._cells_done = max(self._cells_done, index)

    @_guarded
    def frame(self, frame: CameraFrame) -> None:
        """Record one captured frame: metadata, rgb8 image, camera info and TF."""
        meta = {'cell': self.current_cell, 'camera': frame.camera, 'stamp_s': frame.stamp_s,
                'world_from_camera': frame.model.world_from_camera,
                'intrinsics': frame.model.intrinsics, 'depth': frame.depth_m is not None}
        messages = convert.frame_messages(self.types.store, frame)
        types = {topics.camera_image(frame.camera): topics.IMAGE,
                 topics.camera_info(frame.camera): topics.CAMERA_INFO,
                 topics.TF: topics.TF_MESSAGE}
        self._write([self._json(topics.camera_meta(frame.camera), meta),
                     *((topic, types[topic], message) for topic, message in messages.items())])

    @_guarded
    def joint_state(self, state: JointState) -> None:
        """Record one joint state sample of one arm (``/joint_states`` as a driver sends it)."""
        meta = {'cell': self.current_cell, 'arm': state.arm, 'stamp_s': state.stamp_s}
        self._write([self._json(topics.JOINT_STATES_META, meta),
                     *self._driver.joint_states(state)])

    @_guarded
    def arm_bases(self, bases: Sequence[ArmBase], stamp_s: float) -> None:
        """Record the arm bases as ``/tf_static`` (``world`` -> ``<arm>/base_link``)."""
        self._write(self._driver.arm_bases(bases, stamp_s))

    def primitive_goal(self, name: str, args: tuple, kwargs: Mapping[str, Any]) -> int:
        """Record a primitive call's goal; returns its goal id for ``primitive_result``."""
        with self._lock:
            goal_id = next(self._goals)
            self._open_goals[goal_id] = name
            self._goal(goal_id, name, args, kwargs)
            return goal_id

    @_guarded
    def _goal(self, goal_id: int, name: str, args: tuple, kwargs: Mapping[str, Any]) -> None:
        with self._lock:
            limit = self.budget.value_bytes
            args = tuple(recorded(value, limit) for value in args)
            kwargs = {str(k): recorded(value, limit) for k, value in kwargs.items()}
            payload = {'cell': self.current_cell, 'goal_id': goal_id, 'name': name,
                       'args': convert.plain(args), 'kwargs': convert.plain(kwargs)}
            entries = [self._json(topics.PRIMITIVE_GOAL, payload)]
            action, implied = topics.PRIMITIVE_ACTIONS.get(name, (None, {}))
            msgtype = None if action is None else self.types.action_type(action, 'Goal')
            if msgtype is not None and not args:
                typed = convert.typed_message(self.types.store, msgtype,
                                              {**kwargs, **implied}, fill_missing=True)
                if typed is not None:
                    entries.append((topics.primitive_goal(name), msgtype, typed))
            self._write(entries)

    def _result_type(self, result: Any) -> str | None:
        """Return the action result type whose fields equal ``result``'s dataclass fields."""
        cls = type(result)
        if cls not in self._result_types:
            names = ({f.name for f in dataclasses.fields(cls)}
                     if dataclasses.is_dataclass(cls) else None)
            store = self.types.store
            self._result_types[cls] = next(
                (msgtype for msgtype in (self.types.action_type(a, 'Result')
                                         for a in self.types.actions)
                 if names == {n for n, _ in store.fielddefs[msgtype][1]}), None)
        return self._result_types[cls]

    @_guarded
    def primitive_result(self, goal_id: int, result: Any, *, duration_s: float,
                         error: str | None = None) -> None:
        """Record the result of goal ``goal_id``: repr, structured fields, typed message."""
        with self._lock:
            name = self._open_goals.pop(goal_id, '?')
            if name == '?':
                _LOG.warning('result for goal id %d that primitive_goal never returned (or '
                             'already finished); recorded under name "?"', goal_id)
            payload = {'cell': self.current_cell, 'goal_id': goal_id, 'name': name,
                       'result_repr': (repr_text(result, self.budget.text_chars)
                                       if error is None else ''),
                       'result_type': type(result).__name__ if error is None else '',
                       'fields': (recorded_fields(result, self.budget.value_bytes)
                                  if error is None else None),
                       'error': (cut_text(str(error), self.budget.text_chars)
                                 if error is not None else None),
                       'duration_s': duration_s}
            entries = [self._json(topics.PRIMITIVE_RESULT, payload)]
            msgtype = self._result_type(result) if error is None else None
            if msgtype is not None:
                typed = convert.dataclass_message(self.types.store, msgtype, result)
                if typed is None:
                    _LOG.warning('%s does not convert to %s; only its JSON record is written',
                                 repr_text(result, 200), msgtype)
                else:
                    entries.append((topics.primitive_result(name), msgtype, typed))
            self._write(entries)

    @_guarded
    def episode_ended(self, result: EpisodeResult) -> None:
        """Record the end: end reason, success, score and the accounting totals."""
        record = {k: v for k, v in result.to_dict().items() if k not in ('cell_log',)}
        record['recording'] = self.recording_state()
        self.transcript.write('end', record)
        self._write([self._json(topics.EPISODE, {'cell': result.cells, 'event': 'end',
                                                 **record}),
                     *self._episode_event('end', record)])

    def close(self) -> None:
        """Finish the bag (summary and metadata.yaml) and the transcript."""
        with self._lock:
            self.bag.close()
            self.transcript.close()

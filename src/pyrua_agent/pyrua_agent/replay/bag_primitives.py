"""
The bag station of a replay: primitives whose results and frames come from an episode bag.

No robot and no simulator: each ``robo.<name>(...)`` call of a replayed cell is matched, in
order within its cell, against the primitive goals recorded for that cell. Same name and
same arguments (defaults filled in on both sides) return the recorded result, rebuilt as
the same dataclass, or raise the recorded error; ``image`` (and so ``robo.show``) returns
the frame captured during the recorded call. Anything else is a divergence: the call
raises ``ReplayDivergence`` in the cell, except an unmatched ``image``, which returns the
nearest recorded frame of that camera and says so in the divergence log. Nothing is
invented: motion, perception and state primitives only ever return what was recorded.

The evaluator's verdict is replayed too, as recorded: ``success`` becomes True at the
point of the replay where the recorded episode first found the task complete (the success
guard's skipped call, or the end of the last cell of a solved episode), and only while no
call has diverged; after a divergence the recorded verdict no longer applies.

Why one module of about 400 lines: matching, answering and the recorded verdict share one
per-cell cursor, so they stay in one class; rebuilding results (``rebuild``) and the
divergence records (``divergence``) live beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
import functools
import inspect
import logging
import threading
from typing import Any, TYPE_CHECKING

import numpy as np
from pyrua_primitives.library import ACTING, PrimitiveLibrary
from pyrua_primitives.world import EvaluatorHooks, WorldEntry, WorldParts

from .divergence import CallDivergence, ReplayDivergence
from .rebuild import rebuild_error, rebuild_result, return_hint
from ..episode import EpisodeWorld
from ..planners.base import TaskCard
from ..recording.bag_reader import BagRecording, read_bag, RecordedFrame
from ..recording.convert import plain
from ..recording.observer import EpisodeObserver
from ..runtime.calls import call_text

if TYPE_CHECKING:
    from ..episode import EpisodeSpec

_LOG = logging.getLogger(__name__)
RUNTIME_KEYWORDS = frozenset(('cancel', 'feedback'))
SENSING_SUBSTITUTES = ('image',)
"""Pure sensing primitives that get the nearest recorded observation when unmatched."""


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One primitive goal of the recording and its result record (None: none came)."""

    goal_id: int
    name: str
    kwargs: dict[str, Any]
    result: dict[str, Any] | None

    @property
    def text(self) -> str:
        """Return the call as the model wrote it, e.g. ``move_to(arm='left', ...)``."""
        return call_text(self.name, (), self.kwargs)


def library_prototypes() -> dict[str, Callable[..., Any]]:
    """
    Return the primitive library's methods, for their signatures, docstrings and types only.

    The library is built without a station: the bag primitives never run these bodies, they
    only bind arguments the way the recorded run did (so a bad call raises the same
    ``TypeError``) and read the return annotations to rebuild results.
    """
    return PrimitiveLibrary(station=None).primitives()


def _without_runtime(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k not in RUNTIME_KEYWORDS}


class BagPrimitives:
    """
    Primitives answering from one recorded episode, cell by cell.

    Calls are matched against recorded cell 1 first; the bag world (``bag_world``) calls
    ``end_cell(k)`` after cell ``k`` (``start_cell(k)`` moves to cell ``k`` directly).
    ``primitives()`` are the callables for ``EpisodeWorld.primitives``.

    :param recording: the episode bag read back (``read_bag``).
    :param prototypes: name -> the original primitive (signature, docstring, return
        annotation); ``library_prototypes()`` by default.
    """

    def __init__(self, recording: BagRecording,
                 prototypes: Mapping[str, Callable[..., Any]] | None = None) -> None:
        self.recording = recording
        self.prototypes = dict(prototypes if prototypes is not None else library_prototypes())
        self._signatures = {name: inspect.signature(func)
                            for name, func in self.prototypes.items()}
        self._hints = {name: return_hint(func) for name, func in self.prototypes.items()}
        results = {r['goal_id']: r for r in recording.results}
        self._calls: dict[int, list[RecordedCall]] = {}
        for goal in recording.goals:
            self._calls.setdefault(goal['cell'], []).append(RecordedCall(
                goal_id=goal['goal_id'], name=goal['name'], kwargs=dict(goal['kwargs']),
                result=results.get(goal['goal_id'])))
        self._frames: dict[int, list[RecordedFrame]] = {}
        for frame in recording.frames:
            if frame.goal_id is not None:
                self._frames.setdefault(frame.goal_id, []).append(frame)
        self._lock = threading.Lock()
        self._cell = 1
        self._position = 0
        self._used: set[int] = set()
        self.divergences: list[CallDivergence] = []
        self.rebuild_notes: list[str] = []
        self._diverged = False

    def __repr__(self) -> str:
        return (f'BagPrimitives({self.recording.path.parent.name}, {len(self.prototypes)} '
                f'primitives, cell {self._cell}, {len(self.divergences)} divergences)')

    @property
    def diverged(self) -> bool:
        """Return True once a replayed call did not match the recording."""
        return self._diverged

    def recorded_calls(self, cell: int) -> int:
        """Return how many primitive goals the recording has for ``cell``."""
        return len(self._calls.get(cell, ()))

    def start_cell(self, index: int) -> None:
        """Match the following calls against recorded cell ``index``."""
        with self._lock:
            self._cell, self._position = index, 0

    def end_cell(self, index: int) -> None:
        """Log the recorded calls of cell ``index`` the replay did not make."""
        with self._lock:
            missing = self._calls.get(index, [])[self._position:]
            logged = any(d.cell == index and d.call == self._position + 1
                         for d in self.divergences)
            if index == self._cell and missing and not logged:
                self._diverged = True
                self.divergences.append(CallDivergence(
                    cell=index, call=self._position + 1, called='',
                    recorded=missing[0].text,
                    action=f'not called: the replayed cell made {self._position} of the '
                           f'{len(self._calls[index])} recorded calls'))
            self._cell, self._position = index + 1, 0

    def primitives(self) -> dict[str, Callable[..., Any]]:
        """Return name -> callable for every prototype, answering from the bag."""
        return {name: self._primitive(name, func) for name, func in self.prototypes.items()}

    def _primitive(self, name: str, prototype: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(prototype)
        def primitive(*args: Any, **kwargs: Any) -> Any:
            return self.call(name, args, _without_runtime(kwargs))

        return primitive

    def call(self, name: str, args: tuple, kwargs: dict[str, Any]) -> Any:
        """
        Answer one primitive call from the recording.

        :raises ReplayDivergence: when the recording has no matching call.
        :raises TypeError: for arguments the primitive does not take (as the recorded run).
        """
        arguments = self._bind(name, args, kwargs)
        with self._lock:
            recorded = self._take(name, arguments)
            if recorded is not None:
                return self._answer(name, recorded)
            if name in SENSING_SUBSTITUTES:
                frame = self._nearest_frame(arguments.get('camera'))
                if frame is not None:
                    self._diverge(self._position + 1, call_text(name, args, kwargs),
                                  self._expected(), f'returned the recorded {frame.camera} '
                                  f'frame of cell {frame.cell} (t={frame.stamp_s:.3f} s) '
                                  'instead')
                    return frame.rgb.copy()
            raise self._missed(name, args, kwargs, arguments, 'raised ReplayDivergence')

    def match(self, name: str, args: tuple, kwargs: dict[str, Any], *,
              strict: bool = True) -> RecordedCall | None:
        """
        Match one call against the recording without answering it (``answer`` does).

        A replay that runs the call itself (a sensing primitive on played topics) matches
        it to learn which recorded goal it repeats.

        :param strict: True: a call the recording lacks raises; False: it is logged as a
            divergence ('ran on the played topics') and None is returned.
        :raises ReplayDivergence: for a call the recording lacks, when ``strict``.
        :raises TypeError: for arguments the primitive does not take (as the recorded run).
        """
        arguments = self._bind(name, args, kwargs)
        with self._lock:
            recorded = self._take(name, arguments)
            if recorded is not None or strict:
                if recorded is None:
                    raise self._missed(name, args, kwargs, arguments,
                                       'raised ReplayDivergence')
                return recorded
            self._missed(name, args, kwargs, arguments, 'ran on the played topics')
            return None

    def answer(self, name: str, recorded: RecordedCall) -> Any:
        """
        Return (or raise) what ``recorded``, a call ``match`` returned, returned in the run.

        :raises ReplayDivergence: when the recording lacks its result.
        """
        with self._lock:
            return self._answer(name, recorded)

    def _bind(self, name: str, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Return the call's arguments by name; a bad call raises Python's own TypeError."""
        try:
            bound = self._signatures[name].bind(*args, **kwargs)
        except TypeError:
            self.prototypes[name](*args, **kwargs)  # raises Python's own message, as recorded
            raise
        return _without_runtime(bound.arguments)

    def _expected(self) -> RecordedCall | None:
        expected = self._calls.get(self._cell, [])
        return expected[self._position] if self._position < len(expected) else None

    def _take(self, name: str, arguments: Mapping[str, Any]) -> RecordedCall | None:
        """Return the recorded call at this position if it is this call, and move past it."""
        recorded = self._expected()
        if recorded is not None and recorded.name == name and (
                self._normalized(name, recorded.kwargs) == self._normalized(name, arguments)):
            self._position += 1
            self._used.add(recorded.goal_id)
            return recorded
        return None

    def _missed(self, name: str, args: tuple, kwargs: dict[str, Any],
                arguments: Mapping[str, Any], action: str) -> ReplayDivergence:
        """Log a call the recording lacks at this position; return the error that says so."""
        number = self._position + 1
        called = call_text(name, args, kwargs)
        recorded = self._expected()
        count = len(self._calls.get(self._cell, []))
        detail = (self._difference(name, arguments, recorded) if recorded is not None
                  else f'the recorded cell made {count} calls')
        self._diverge(number, called, recorded, f'{action}: {detail}')
        where = (f'{recorded.text} ({detail})' if recorded is not None
                 else f'no call ({detail})')
        return ReplayDivergence(
            f'{called} is call {number} of cell {self._cell} vs {where} in the recording; '
            'a replay returns only recorded results, so run this on the twin or a station '
            'to see what it does')

    def _difference(self, name: str, arguments: Mapping[str, Any],
                    recorded: RecordedCall) -> str:
        """Say how a call differs from the recorded one: the primitive or one argument."""
        if recorded.name != name:
            return f'another primitive: {recorded.name} vs {name}'
        ours = self._normalized(name, arguments)
        theirs = self._normalized(name, recorded.kwargs)
        for key in sorted(set(ours) | set(theirs)):
            if ours.get(key) != theirs.get(key):
                return f'{key}={ours.get(key)!r:.80} vs recorded {theirs.get(key)!r:.80}'
        return 'same arguments'

    def _normalized(self, name: str, arguments: Mapping[str, Any]) -> Any:
        signature = self._signatures[name]
        try:
            bound = signature.bind_partial(**arguments)
        except TypeError:
            return plain(dict(arguments))
        bound.apply_defaults()
        return plain(_without_runtime(bound.arguments))

    def _diverge(self, number: int, called: str, recorded: RecordedCall | None,
                 action: str) -> None:
        self._diverged = True
        self.divergences.append(CallDivergence(
            cell=self._cell, call=number, called=called,
            recorded=recorded.text if recorded is not None else '', action=action))

    def _answer(self, name: str, recorded: RecordedCall) -> Any:
        result = recorded.result
        problem = ''
        if result is None:
            problem = (f'{recorded.text} has a goal but no result in the recording (the run '
                       'ended during it); nothing to return, so the replay stops this cell here')
        elif result.get('error'):
            raise rebuild_error(result['error'])
        elif result.get('result_type') == 'ndarray':
            frames = self._frames.get(recorded.goal_id, [])
            if len(frames) == 1:
                return frames[0].rgb.copy()
            problem = (f'{recorded.text} returned an array in the recording vs {len(frames)} '
                       'frames recorded during it (1 expected); the bag lacks its pixels, so '
                       'it cannot be replayed')
        if problem:
            self._diverge(self._position, recorded.text, recorded,
                          'raised ReplayDivergence: the recording lacks its result')
            raise ReplayDivergence(problem)
        value, note = rebuild_result(result, self._hints.get(name))
        if note:
            self.rebuild_notes.append(f'cell {self._cell}, {recorded.text}: {note}')
            _LOG.warning('replayed result differs from the recording: %s', note)
        return value

    def _nearest_frame(self, camera: Any) -> RecordedFrame | None:
        """Return the last frame of ``camera`` seen before this point, else the next one."""
        before, after = None, None
        for frame in self.recording.frames:
            if frame.camera != camera:
                continue
            if frame.cell < self._cell or frame.goal_id in self._used:
                before = frame
            elif after is None:
                after = frame
        return before or after

    # --- the recorded evaluator ------------------------------------------------------

    def _success_point(self) -> tuple[int, bool] | None:
        """Return (cell, inside) where the recorded run found the task complete, or None."""
        cells = self.recording.cells
        if not cells:
            return None
        last = cells[-1]
        guarded = last.get('stopped_reason') == 'task_complete'
        end = self.recording.end
        if end is not None and end.get('success'):
            return last['cell'], guarded
        return (last['cell'], True) if guarded else None

    def success(self) -> bool:
        """Return the recorded evaluator's verdict at this point of the replay."""
        point = self._success_point()
        if point is None or self._diverged:
            return False
        cell, inside = point
        with self._lock:
            if self._cell > cell:
                return True
            return (inside and self._cell == cell
                    and self._position >= len(self._calls.get(cell, ())))

    def score(self) -> float | None:
        """Return the recorded score when the replay did not diverge, else None."""
        end = self.recording.end
        if end is None or self._diverged:
            return None
        return end.get('score')


def episode_start(recording: BagRecording) -> dict[str, Any]:
    """
    Return the recording's episode start record (task, seed, layout, card, config).

    :raises ValueError: for a recording without one.
    """
    if recording.start is None:
        raise ValueError(f'bag {recording.path} has no episode start record vs one written '
                         'by Recorder.episode_started; it cannot be replayed')
    return recording.start


def bag_world(recording: BagRecording, primitives: BagPrimitives | None = None, *,
              acting: Collection[str] | None = None) -> tuple[EpisodeWorld, BagPrimitives]:
    """
    Return the ``EpisodeWorld`` of a replay: the recorded task card and the bag primitives.

    :param recording: the episode bag read back.
    :param primitives: the bag primitives (default: over the library's prototypes).
    :param acting: primitives the success guard runs before (default: the library's
        ``ACTING`` among the prototypes).
    :returns: the world and its bag primitives (for ``start_cell``/``end_cell`` and the
        divergence log).
    :raises ValueError: for a recording without its episode start record.
    """
    start = episode_start(recording)
    bag = primitives if primitives is not None else BagPrimitives(recording)
    names = bag.prototypes
    acting = tuple(n for n in (ACTING if acting is None else acting) if n in names)
    card = TaskCard(task=start.get('task', ''), instruction=start.get('instruction', ''),
                    robot_state=start.get('robot_state', ''),
                    images=tuple((camera, np.asarray(rgb))
                                 for camera, rgb in recording.card_images))
    world = EpisodeWorld(task=start.get('task', ''), seed=int(start.get('seed', 0)),
                         layout=int(start.get('layout', 0)), card=card,
                         primitives=bag.primitives(), acting=acting, success=bag.success,
                         score=bag.score, after_cell=lambda result: bag.end_cell(result.index))
    return world, bag


def open_recording(spec: EpisodeSpec, observer: EpisodeObserver | None = None, *,
                   primitives: BagPrimitives | None = None) -> WorldParts:
    """
    Open the world of a replay: ``spec.recording``'s bag answers every primitive call.

    Registered as world ``'replay'`` (``REPLAY``). With an observer (a recorder, which
    ``run_episode_spec`` attaches), the replay's cells, primitive goals and results are
    recorded like any episode's; the camera frames stay in the replayed bag.

    :param spec: the episode; ``spec.recording`` is the run folder (or its bag).
    :param observer: unused here (the opener contract).
    :param primitives: the bag primitives (default: over ``spec.recording`` and the
        library's prototypes); ``replay_episode`` passes its own to read the divergences.
    :returns: the world; nothing to release.
    :raises ValueError: for a recording without its episode start record.
    """
    if primitives is None:
        primitives = BagPrimitives(read_bag(spec.recording))
    world, _ = bag_world(primitives.recording, primitives)
    hooks = EvaluatorHooks(success=world.success, score=world.score, after_cell=world.after_cell)
    return WorldParts(instruction=world.card.instruction, hooks=hooks,
                      providers=world.primitives, acting=tuple(world.acting),
                      robot_state=world.card.robot_state, card_images=world.card.images,
                      identity=(world.task, world.seed, world.layout), handle=primitives)


REPLAY = WorldEntry(name='replay', opener=open_recording,
                    summary="a recorded episode's bag answers every primitive call")

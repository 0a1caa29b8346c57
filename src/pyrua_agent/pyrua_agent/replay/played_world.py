"""
The world of a replay over ROS: sensing on the played bag's topics, motion from the recording.

``replay.launch.py`` plays an episode's bag into the agent node's ROS station
(``station.frame_queue``) and re-runs the recorded cells. A played bag has no controller,
so each primitive that moves the robot or lets its time pass (``MOVING``: the acting
primitives and ``wait``) is matched against the recording, in order within its cell, as
``pyrua replay`` matches it (``BagPrimitives``), and returns the recorded result; a call
the recording lacks (a changed argument) raises ``ReplayDivergence`` in the cell. Every
other primitive (locate, pose, joints, image, camera_meta, back_project, reachable) runs
for real on the played frames and joint states; one the recording lacks runs all the same
and is logged as a divergence.

Reads follow the recording's timeline. The played ``/joint_states`` messages are the
samples the recorded run read, in order, each tagged with the goal recorded before it
(``RecordedJointState.after_goal``). ``PlayedStation`` answers a read inside the replayed
goal ``g`` with the next sample recorded inside ``g``, and any other read with the newest
sample recorded before it; a motion answered from the recording moves the timeline past
its own samples and drops the frames captured inside it. So ``robo.pose`` after a replayed
``move_to`` reads what the recorded run read there. No ROS import: the agent node passes
its ``RosStation``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
import logging
import threading
from typing import Any, TYPE_CHECKING

import numpy as np
from pyrua_primitives.errors import PrimitiveError
from pyrua_primitives.library import ACTING
from pyrua_primitives.station import (
    ArmBase,
    CameraFrame,
    CameraModel,
    GripperResult,
    JointLimits,
    JointState,
    TrajectoryResult,
)
from pyrua_primitives.world import EvaluatorHooks, WorldParts

from .bag_primitives import BagPrimitives, episode_start, RUNTIME_KEYWORDS
from ..recording.bag_reader import BagRecording, read_bag
from ..recording.topics import JOINT_STATES
from ..runtime.transport import FeedbackCallback, InProcessTransport

if TYPE_CHECKING:
    from ..episode import EpisodeSpec

_LOG = logging.getLogger(__name__)
MOVING: tuple[str, ...] = (*ACTING, 'wait')
"""Primitives a replay answers from the recording: they move the robot or let time pass."""
NO_CONTROLLER = ('a replay has no controller: {what} comes from the recording '
                 '(PlayedTransport answers the primitives that move); run this on the twin '
                 'or a station')


class PlayedStation:
    """
    The agent's ROS station over a played bag, its reads kept on the recording's timeline.

    :param station: the ROS station with ``frame_queue`` (``played_joint_state`` and
        ``skip_frames``).
    :param recording: the played episode's bag, read back.
    """

    def __init__(self, station: Any, recording: BagRecording) -> None:
        self._station = station
        self._samples = recording.joint_states
        self._frames: dict[str, list[int | None]] = {}
        for frame in recording.frames:
            self._frames.setdefault(frame.camera, []).append(frame.goal_id)
        self._taken = dict.fromkeys(self._frames, 0)
        self._lock = threading.RLock()
        self._next = 0
        self._goal = 0
        self._latest: dict[str, JointState] = {}
        self._stamp_s: float | None = None

    def __repr__(self) -> str:
        return (f'<PlayedStation sample {self._next} of {len(self._samples)}, '
                f'goal {self._goal}>')

    # --- the timeline -------------------------------------------------------------------

    def _advance(self, before: Callable[[int], bool]) -> None:
        """Move past the samples whose ``after_goal`` satisfies ``before``."""
        while self._next < len(self._samples) and before(self._samples[self._next].after_goal):
            self._take()

    def _take(self) -> JointState:
        sample = self._samples[self._next]
        state = self._station.played_joint_state(self._next, sample.arm)
        self._next += 1
        self._latest[sample.arm] = state
        self._stamp_s = state.stamp_s
        return state

    def begin(self, goal_id: int | None) -> None:
        """
        Start replaying recorded goal ``goal_id`` (None: a call the recording lacks).

        The samples recorded before that goal are passed; reads inside it take its own.
        """
        with self._lock:
            if goal_id is None:
                self._goal = -1
                return
            self._goal = goal_id
            self._advance(lambda after: after < goal_id)

    def skip(self, goal_id: int) -> None:
        """Pass recorded goal ``goal_id`` answered from the recording: its samples, frames."""
        with self._lock:
            self._goal = -1
            self._advance(lambda after: after <= goal_id)
            for camera, goals in self._frames.items():
                inside = [i for i in range(self._taken[camera], len(goals))
                          if goals[i] == goal_id]
                if inside:
                    count = inside[-1] + 1 - self._taken[camera]
                    self._station.skip_frames(camera, count)
                    self._taken[camera] += count

    # --- the Station ----------------------------------------------------------------------

    def joint_state(self, arm: str) -> JointState:
        """Return ``arm``'s sample the recorded run read here (else the newest before it)."""
        with self._lock:
            if self._next < len(self._samples):
                sample = self._samples[self._next]
                if sample.after_goal == self._goal and sample.arm == arm:
                    return self._take()
            if arm in self._latest:
                return self._latest[arm]
        return self._station.joint_state(arm)  # no sample of this arm yet: the newest played

    def time_s(self) -> float:
        """Return the stamp of the newest sample passed (the first one before any)."""
        with self._lock:
            if self._stamp_s is not None:
                return self._stamp_s
            if self._samples:
                return self._station.played_joint_state(0, self._samples[0].arm).stamp_s
        return self._station.time_s()

    def capture(self, camera: str, depth: bool = False) -> CameraFrame:
        """Take the next played frame of ``camera``."""
        frame = self._station.capture(camera, depth)
        with self._lock:
            self._taken[camera] = self._taken.get(camera, 0) + 1
        return frame

    def follow_joint_trajectory(self, arm: str, positions_rad: np.ndarray, times_s: np.ndarray,
                                cancel: Any = None) -> TrajectoryResult:
        """Refuse: the replay answers motion from the recording."""
        raise PrimitiveError(NO_CONTROLLER.format(what='joint motion'))

    def command_gripper(self, arm: str, width_m: float, cancel: Any = None) -> GripperResult:
        """Refuse: the replay answers the gripper from the recording."""
        raise PrimitiveError(NO_CONTROLLER.format(what='the gripper'))

    def joint_limits(self, arm: str) -> JointLimits:
        """Return the station's joint limits."""
        return self._station.joint_limits(arm)

    def camera_model(self, camera: str) -> CameraModel:
        """Return the camera's model from the played camera info and TF."""
        return self._station.camera_model(camera)

    def arm_base(self, arm: str) -> ArmBase:
        """Return the arm's base pose from the played ``/tf_static``."""
        return self._station.arm_base(arm)

    def home_positions_rad(self, arm: str) -> np.ndarray:
        """Return the station's calibrated ready pose of ``arm``."""
        return self._station.home_positions_rad(arm)

    def table_height_m(self) -> float:
        """Return the station's table height."""
        return self._station.table_height_m()


class RecordedGoal:
    """A goal answered from the recording: done at once, with the recorded value or error."""

    def __init__(self, name: str, value: Any = None, error: BaseException | None = None) -> None:
        self.name = name
        self._value = value
        self._error = error

    def done(self) -> bool:
        """Return True: the recording holds the outcome."""
        return True

    def wait(self, timeout_s: float | None = None) -> bool:
        """Return True at once."""
        return True

    def result(self) -> Any:
        """Return the recorded value, or raise the recorded (or divergence) error."""
        if self._error is not None:
            raise self._error
        return self._value

    def cancel(self, reason: str = 'cancelled') -> None:
        """Do nothing: the recorded goal has ended."""

    def __repr__(self) -> str:
        return f'<RecordedGoal {self.name} {"error" if self._error else "done"}>'


class PlayedTransport:
    """
    The runtime's transport of a replay over ROS: moving primitives answered, others run.

    :param primitives: the library's primitives over the ``PlayedStation``.
    :param bag: matches every call against the recording.
    :param station: the played station whose timeline each call moves.
    """

    def __init__(self, primitives: Mapping[str, Callable[..., Any]], bag: BagPrimitives,
                 station: PlayedStation) -> None:
        self._local = InProcessTransport(primitives)
        self._bag = bag
        self._station = station

    def names(self) -> tuple[str, ...]:
        """Return the primitive names this transport runs."""
        return self._local.names()

    def send_goal(self, name: str, args: tuple, kwargs: dict,
                  feedback: FeedbackCallback | None = None) -> Any:
        """Answer a moving primitive from the recording; run any other on the played topics."""
        if RUNTIME_KEYWORDS & set(kwargs):  # the in-process transport refuses them, saying so
            return self._local.send_goal(name, args, kwargs, feedback)
        if name in MOVING and name in self._bag.prototypes:
            try:
                recorded = self._bag.match(name, args, kwargs)
                self._station.skip(recorded.goal_id)
                return RecordedGoal(name, self._bag.answer(name, recorded))
            except Exception as exc:  # the cell sees it from result(), as in process
                return RecordedGoal(name, error=exc)
        recorded = None
        if name in self._bag.prototypes:
            try:
                recorded = self._bag.match(name, args, kwargs, strict=False)
            except TypeError:
                recorded = None  # the primitive raises the same TypeError itself
            if recorded is None and self._bag.divergences:
                _LOG.warning('replay: %r', self._bag.divergences[-1])
        self._station.begin(None if recorded is None else recorded.goal_id)
        return self._local.send_goal(name, args, kwargs, feedback)


def open_played(spec: EpisodeSpec, observer: Any = None, *, station: Any,
                bag: str) -> WorldParts:
    """
    Open the world of a replay over ROS: ``bag`` is played into ``station``.

    :param spec: the episode; ``spec.instruction`` wins over the recorded one.
    :param observer: unused here (the opener contract).
    :param station: the agent node's ROS station (``frame_queue``) the bag plays into.
    :param bag: the played bag (or its run folder), read for the recorded results.
    :returns: the world; its ``handle`` is the ``BagPrimitives`` (the divergence log).
    :raises ValueError: for a bag without an episode start record, or whose
        ``/joint_states`` messages are not the recorded samples.
    """
    recording = read_bag(bag)
    start = episode_start(recording)
    played = recording.topic_counts.get(JOINT_STATES, 0)
    if played != len(recording.joint_states):
        raise ValueError(f'{bag}: {played} {JOINT_STATES} messages vs '
                         f'{len(recording.joint_states)} recorded samples; replay over ROS '
                         'needs a bag written by the episode recorder (pyrua run, agent_node)')
    primitives = BagPrimitives(recording)
    timeline = PlayedStation(station, recording)
    hooks = EvaluatorHooks(success=primitives.success, score=primitives.score,
                           after_cell=lambda result: primitives.end_cell(result.index))
    return WorldParts(
        instruction=spec.instruction or start.get('instruction', ''), station=timeline,
        hooks=hooks, identity=(start.get('task', spec.task), int(start.get('seed', 0)),
                               int(start.get('layout', 0))),
        transport=lambda found: PlayedTransport(found, primitives, timeline),
        handle=primitives)

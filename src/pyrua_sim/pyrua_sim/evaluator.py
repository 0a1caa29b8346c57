"""
The privileged side of the twin (DESIGN.md rule 4): ground truth, success and score.

Only the evaluator (and the optional success guard) may see object poses. It reads them
through the station's evaluator-only accessor, never through the Station interface, and
nothing here is reachable from the Station an agent is given.

``StageTracker`` is the pure part: it accumulates a task's events (history) and the
highest stage reached ('transition' mode: the score never goes back). ``SimEvaluator``
feeds it states read from a running ``MujocoStation``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .layout import Layout
from .tasks import SceneState, TaskDef

RELEASE_FRACTION = 0.6
"""A gripper counts as released when open wider than this fraction of its full stroke."""


@dataclass(frozen=True, slots=True)
class EvaluationResult:
    """Success first, then why not, then the staged score in [0, 1]."""

    success: bool
    reason: str
    score: float
    stages_seen: int

    def __repr__(self) -> str:
        state = 'success' if self.success else f'not yet: {self.reason}'
        return f'EvaluationResult({state}, score={self.score:.2f})'


class StageTracker:
    """
    Accumulate a task's history and the highest stage reached over observed states.

    :param task: the task definition.
    :param layout: the layout being evaluated.
    """

    def __init__(self, task: TaskDef, layout: Layout) -> None:
        self.task = task
        self.layout = layout
        self.history: frozenset[str] = frozenset()
        self.best = 0.0
        self.observed = 0
        self.succeeded = False

    def observe(self, state: SceneState) -> float:
        """Advance the history and stage with ``state``; return the score so far."""
        self.history = self.history | self.task.events(self.layout, state)
        self.observed += 1
        if self.task.success(self.layout, state, self.history):
            self.succeeded = True
            self.best = 1.0
        else:
            stage = float(self.task.progress(self.layout, state, self.history))
            self.best = max(self.best, min(stage, 0.99))
        return self.best

    def success(self, state: SceneState) -> bool:
        """Return whether ``state`` (with the history so far) satisfies the task now."""
        return bool(self.task.success(self.layout, state, self.history | self.task.events(
            self.layout, state)))

    def score(self) -> float:
        """Return the staged score: the highest stage reached, 1.0 once succeeded."""
        return self.best


class SimEvaluator:
    """
    Judge an episode on the twin: success, staged score and ground-truth object poses.

    Call ``observe()`` after every primitive (the runtime does): Memory tasks and buttons
    judge the history of observed states. ``success()`` and ``score()`` observe the current
    state too, then answer with the history so far.

    :param station: the twin's MujocoStation (read through its evaluator-only accessor).
    :param layout: the layout the station's scene was built from.
    :param task: the task definition (looked up from ``layout.task`` when omitted).
    """

    def __init__(self, station, layout: Layout, task: TaskDef | None = None) -> None:
        from .tasks import get_task

        self._station = station
        self.layout = layout
        self.task = task or get_task(layout.task)
        self._tracker = StageTracker(self.task, layout)
        self._names = tuple(o.name for o in layout.objects)

    def object_poses(self) -> dict[str, np.ndarray]:
        """Return each layout object's pose (x, y, z, qw, qx, qy, qz), world frame, metres."""
        truth = self._station.privileged_state()
        return {name: truth.body_pose(name) for name in self._names}

    def set_object_pose(self, name: str, pose: tuple[float, ...] | np.ndarray) -> None:
        """
        Place a free object (block, peg, distractor) at ``pose``, at rest (for test states).

        :param name: a layout object's body name.
        :param pose: (x, y, z) or (x, y, z, qw, qx, qy, qz), world frame, metres.
        :raises KeyError: for a name not in the layout.
        """
        if name not in self._names:
            raise KeyError(f'no object {name!r} in the layout; objects: {list(self._names)}')
        self._station.privileged_state().set_body_pose(name, np.asarray(pose, dtype=float))

    def state(self) -> SceneState:
        """Return the ground truth now: object poses and the grippers' widths."""
        widths, opened = {}, {}
        for arm in ('left', 'right'):
            width = self._station.joint_state(arm).gripper_width_m
            full = self._station.joint_limits(arm).gripper_max_width_m
            widths[arm] = float(width)
            opened[arm] = bool(width >= RELEASE_FRACTION * full)
        return SceneState(self.object_poses(), widths, opened, self._station.time_s())

    def observe(self) -> float:
        """Advance the task's history and stage from the current state; return the score."""
        return self._tracker.observe(self.state())

    def success(self) -> bool:
        """Observe the current state and return whether the task is solved now."""
        state = self.state()
        self._tracker.observe(state)
        return self._tracker.success(state)

    def score(self) -> float:
        """Observe the current state and return the staged process reward, 1.0 once solved."""
        return self.observe()

    def unmet(self) -> tuple[str, ...]:
        """
        Observe the current state; say why the task is not solved, empty once it is.

        :returns: one line per unmet condition of the success check, with the numbers
            against its bound (the task's ``unmet``), then a line saying what the score
            counts: the highest stage reached, from the task's stages.
        """
        state = self.state()
        self._tracker.observe(state)
        if self._tracker.success(state):
            return ()
        history = self._tracker.history | self.task.events(self.layout, state)
        why = self.task.unmet(self.layout, state, history) or (
            f'{self.task.name} check not met',)
        return (*why, f'score {self._tracker.score():.2f} is the highest stage reached, 1.0 '
                      f'only on success; {self.task.stages}')

    def result(self) -> EvaluationResult:
        """Observe once more and return success, the reasons if not, and the score."""
        why = self.unmet()
        return EvaluationResult(not why, '; '.join(why[:-1]), self._tracker.score(),
                                self._tracker.observed)

    def __repr__(self) -> str:
        return f'SimEvaluator({self.task.name!r}, score={self._tracker.score():.2f})'

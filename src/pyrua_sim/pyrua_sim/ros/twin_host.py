"""
``TwinHost``: the twin as the sim node serves it, ROS-free (evaluator side, DESIGN.md rule 4).

It owns the current ``Twin`` and answers the evaluator's services: reset to a layout, task
status, and Gazebo-style entity operations on the layout's objects. The twin's scene is
compiled, so "delete" parks a free object on the floor behind the head camera (out of every
view and reach) and "spawn" brings a parked object back by name; a new model from XML is
refused with the way to get one (a layout reset). Resets are refused while a motion runs.
"""

from __future__ import annotations

from collections.abc import Callable
import threading
from typing import Any

import numpy as np
from pyrua_primitives.conversions.transforms import pose_to_tuple

from ..evaluator import EvaluationResult
from ..twin import load_twin, Twin

WORLD_FRAMES = ('', 'world')
PARK_Y_M = -2.5
PARK_X0_M = -2.4
PARK_STEP_M = 0.3
PARK_Z_M = 0.1
"""Parking spots of deleted objects: a row on the floor behind the head camera, metres."""
RESET_STEP_S = 0.1
"""How far the sim node's clock moves on at a reset (stamps stay strictly increasing)."""


def requested_pose(pose: Any) -> tuple[np.ndarray | None, str]:
    """
    Return the (x y z qw qx qy qz) of a requested ``geometry_msgs/Pose``, or None and why.

    A service caller's bad pose (a zero quaternion, NaN) is answered as a failed response;
    raised out of a service callback it would end the sim node's executor.
    """
    try:
        values = np.array(pose_to_tuple(pose), dtype=float)
    except ValueError as exc:
        return None, str(exc)
    if not np.all(np.isfinite(values)):
        return None, (f'pose {np.round(values, 4).tolist()} has NaN or inf vs finite metres '
                      'and a unit quaternion; send finite numbers')
    return values, ''


class TwinHost:
    """
    The sim node's twin and its evaluator-side operations.

    :param twin: the loaded twin.
    :param loader: builds a twin from (task, seed, layout) (default: ``load_twin``).
    """

    def __init__(self, twin: Twin,
                 loader: Callable[[str, int, int], Twin] | None = None) -> None:
        self.twin = twin
        self._loader = loader or load_twin
        self._lock = threading.Lock()
        self._moving = 0
        self._parked: dict[str, int] = {}
        self._epoch_s = 0.0

    # --- clock --------------------------------------------------------------------------

    def time_s(self) -> float:
        """
        Return the sim node's clock: the twin's time plus the time of earlier layouts.

        The twin's own clock restarts at 0 on every reset; this one never goes back (a TF
        listener kept across episodes gets no TF_OLD_DATA, static transforms re-sent
        after a reset carry a newer stamp). Durations are the twin's seconds either way.
        """
        return self._epoch_s + self.twin.station.time_s()

    def stamp_s(self, twin_time_s: float) -> float:
        """Return the sim node's stamp of a twin time (a frame's ``stamp_s``)."""
        return self._epoch_s + twin_time_s

    # --- motions and resets -----------------------------------------------------------

    def begin_motion(self) -> None:
        """Count a controller goal as running (resets wait until none is)."""
        with self._lock:
            self._moving += 1

    def end_motion(self) -> None:
        """Count a controller goal as done and advance the evaluator's history."""
        with self._lock:
            self._moving -= 1
        self.twin.evaluator.observe()

    def reset(self, task: str, seed: int, layout: int) -> tuple[bool, str]:
        """
        Move to layout (task, seed, layout); '' keeps the current task.

        :returns: (success, message); on failure the current twin is kept.
        """
        with self._lock:
            if self._moving:
                return False, (f'{self._moving} motion(s) running; cancel them before '
                               'resetting the task')
            task = task or self.twin.layout.task
            ended_s = self.time_s()
            try:
                if task == self.twin.layout.task:
                    self.twin.reset(seed, layout)
                else:
                    fresh = self._loader(task, seed, layout)
                    self.twin.close()
                    self.twin = fresh
            except (KeyError, ValueError) as exc:
                return False, str(exc.args[0] if exc.args else exc)
            self._epoch_s = ended_s + RESET_STEP_S - self.twin.station.time_s()
            self._parked.clear()
            return True, ''

    def status(self) -> EvaluationResult:
        """Return the evaluator's verdict now (observing once more)."""
        return self.twin.evaluator.result()

    # --- entities -----------------------------------------------------------------------

    def _check(self, name: str, reference_frame: str) -> str:
        if reference_frame not in WORLD_FRAMES:
            return (f'reference_frame {reference_frame!r} vs the world frame; pass '
                    "'' or 'world'")
        names = [o.name for o in self.twin.layout.objects]
        if name not in names:
            return f'no entity {name!r}; entities: {names}'
        return ''

    def get_state(self, name: str, reference_frame: str = '') -> tuple[bool, str, np.ndarray]:
        """Return (success, message, pose x y z qw qx qy qz) of a layout object."""
        problem = self._check(name, reference_frame)
        if problem:
            return False, problem, np.full(7, np.nan)
        return True, '', self.twin.evaluator.object_poses()[name]

    def set_state(self, name: str, pose: np.ndarray,
                  reference_frame: str = '') -> tuple[bool, str]:
        """Place a free layout object at ``pose`` (x y z qw qx qy qz), at rest."""
        problem = self._check(name, reference_frame)
        if problem:
            return False, problem
        try:
            self.twin.evaluator.set_object_pose(name, pose)
        except ValueError as exc:
            return False, str(exc)
        self._parked.pop(name, None)
        return True, ''

    def set_state_from_message(self, name: str, pose: Any,
                               reference_frame: str = '') -> tuple[bool, str]:
        """``set_state`` for a ``geometry_msgs/Pose``; a bad pose is a failed answer."""
        values, problem = requested_pose(pose)
        if values is None:
            return False, f'set_entity_state({name!r}): {problem}'
        return self.set_state(name, values, reference_frame)

    def delete(self, name: str) -> tuple[bool, str]:
        """Park a free layout object out of every view and reach."""
        if name in self._parked:
            return False, f'entity {name!r} is already deleted'
        slot = len(self._parked)
        spot = (PARK_X0_M + PARK_STEP_M * slot, PARK_Y_M, PARK_Z_M)
        ok, message = self.set_state(name, np.array(spot))
        if ok:
            self._parked[name] = slot
        return ok, message

    def spawn(self, name: str, xml: str, pose: np.ndarray,
              reference_frame: str = '') -> tuple[bool, str]:
        """Bring a deleted layout object back at ``pose``; new models are refused."""
        if xml.strip():
            return False, ('the twin cannot add a model from xml (its scene is compiled); '
                           'call the reset_task service for a layout with the objects you need')
        if name not in self._parked:
            return False, (f'entity {name!r} was not deleted; spawn brings back deleted '
                           f'objects: {sorted(self._parked)}')
        return self.set_state(name, pose, reference_frame)

    def spawn_from_message(self, name: str, xml: str, pose: Any,
                           reference_frame: str = '') -> tuple[bool, str]:
        """``spawn`` for a ``geometry_msgs/Pose``; a bad pose is a failed answer."""
        values, problem = requested_pose(pose)
        if values is None:
            return False, f'spawn_entity({name!r}): {problem}'
        return self.spawn(name, xml, values, reference_frame)

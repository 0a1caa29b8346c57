"""
What the primitive layer reports while an episode runs, without importing the recorder.

``Recorder`` implements this protocol. A primitive library holds any object with these
methods (a structural ``Protocol``: no import of ``pyrua_agent`` is needed; the primitive
package may declare the same four methods itself) and calls them as it works: each
captured frame, each joint state sample, each primitive goal and its result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from pyrua_primitives.station import CameraFrame, JointState


@runtime_checkable
class EpisodeObserver(Protocol):
    """Receives the observations and primitive calls of a running episode."""

    def frame(self, frame: CameraFrame) -> None:
        """Record one captured camera frame with its camera model."""
        ...

    def joint_state(self, state: JointState) -> None:
        """Record one measured joint state of one arm."""
        ...

    def primitive_goal(self, name: str, args: tuple, kwargs: Mapping[str, Any]) -> int:
        """
        Record that primitive ``name`` was called; return the goal id for its result.

        Pass arguments by keyword (``inspect.signature(f).bind(...).arguments``) to get the
        typed ``pyrua_msgs`` goal as well as the JSON record.
        """
        ...

    def primitive_result(self, goal_id: int, result: Any, *, duration_s: float,
                         error: str | None = None) -> None:
        """Record the result of goal ``goal_id`` (``error``: the exception text, if it raised)."""
        ...


@runtime_checkable
class EpisodeRecorder(EpisodeObserver, Protocol):
    """
    An observer of a whole episode, what ``run_episode_spec`` attaches.

    ``Recorder``, a live view, an ``ObserverFanout`` of several. Besides the primitive
    layer's reports it gets the episode's start, each cell, each counted model call and the
    end, and is closed once. ``arm_bases`` (the station's fixed
    arm frames) and ``run_dir`` are optional: the recorder has them.
    """

    def episode_started(self, config: Mapping[str, Any], card: Any, *, seed: int,
                        layout: int, planner: str) -> None:
        """Record the episode's start: its configuration and task card."""
        ...

    def cell(self, cell: Any, result: Any) -> None:
        """Record one cell and its result."""
        ...

    def llm_call(self, record: Any, request_messages: Sequence[Mapping[str, Any]],
                 reply: Any | None = None) -> None:
        """Record one counted model call with the history it was sent."""
        ...

    def episode_ended(self, result: Any) -> None:
        """Record the episode's end record."""
        ...

    def close(self) -> None:
        """Finish the recording (idempotent)."""
        ...

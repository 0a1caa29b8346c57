"""
What every planner gives the episode loop, and what it gets back.

A planner turns a task card and the results of earlier cells into the next cell of code.
The code agent writes cells itself; the tool-calling baseline turns each tool call into a
one-call cell; the script and replay planners read recorded cells. All of them run through
the same loop, runtime, guards and budgets, so their episode records are comparable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..accounting import Ledger
from ..budgets import Budgets
from ..runtime import CellResult


@dataclass(frozen=True, slots=True)
class TaskCard:
    """
    What the model is told at the start: the instruction, the robot's state, first images.

    ``images`` are ``(camera, HxWx3 uint8)`` pairs captured before the first cell;
    ``station_facts`` (table, arm bases, cameras, reach, gripper) are measured from the
    world's Station and go into the system prompt.
    """

    task: str
    instruction: str
    robot_state: str
    images: tuple[tuple[str, np.ndarray], ...] = field(default=())
    station_facts: str = ''

    def __repr__(self) -> str:
        cams = ', '.join(camera for camera, _ in self.images) or 'no images'
        return f'TaskCard({self.task!r}, {self.instruction[:60]!r}, {cams})'


@dataclass(frozen=True, slots=True)
class Cell:
    """
    The next cell a planner wants run.

    ``code`` is the Python source; ``label`` says where it came from (a script cell title,
    a tool call id) for the transcript.
    """

    code: str
    label: str = ''


@dataclass(frozen=True, slots=True)
class Finish:
    """The planner ends the episode on its own (no more cells, or the model answered)."""

    message: str = ''


class Planner(Protocol):
    """
    The interface the episode loop drives.

    ``begin`` is called once; then ``next_step`` and ``observe`` alternate until
    ``next_step`` returns ``Finish`` or raises ``EpisodeEnd`` (budget, context, infra).
    """

    name: str
    ledger: Ledger

    def begin(self, card: TaskCard, budgets: Budgets) -> None:
        """Start the episode with its task card; LLM planners charge calls to ``budgets``."""
        ...

    def next_step(self) -> Cell | Finish:
        """Return the next cell to run, or ``Finish``."""
        ...

    def observe(self, result: CellResult) -> None:
        """Receive the result of the cell last returned by ``next_step``."""
        ...

    def close(self) -> None:
        """Release connections or files."""
        ...

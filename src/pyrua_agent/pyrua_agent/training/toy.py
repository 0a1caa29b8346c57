"""
The toy world: three buttons, no robot. Solved when the first button pressed is the red one.

It exists so the whole training path (planner, prompt, sandboxed cell worker, rollout engine,
loss, optimizer) can be checked for learning in minutes on a CPU with the tiny policy
(``tiny.build_tiny_policy`` with ``TOY_CELLS``): a random policy over those cells solves it
about a quarter of the time, and GRPO must raise that. The episode is an ordinary code-agent
episode; only the world is small.
"""

from __future__ import annotations

import threading

from ..episode import EpisodeWorld
from ..planners.base import TaskCard

TOY_TASK = 'press_red'
TOY_COLORS = ('red', 'green', 'blue')
TOY_CELLS = tuple(f"robo.press('{color}')" for color in TOY_COLORS)
"""The cells the tiny policy's vocabulary holds, one whole ``python`` tool call each."""


class ButtonPanel:
    """Three buttons that remember the order they were pressed in."""

    def __init__(self) -> None:
        self.pressed: list[str] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f'ButtonPanel(pressed={self.pressed})'

    def press(self, color: str) -> str:
        """
        Press one button of the panel.

        :param color: ``'red'``, ``'green'`` or ``'blue'``.
        :returns: a line saying which button was pressed.
        :raises ValueError: for another colour, listing the valid ones.
        """
        if color not in TOY_COLORS:
            raise ValueError(f'no {color!r} button vs {TOY_COLORS}; press one of them')
        with self._lock:
            self.pressed.append(color)
        return f'pressed the {color} button'

    def success(self) -> bool:
        """Return True when the first button pressed was the red one."""
        return bool(self.pressed) and self.pressed[0] == 'red'


def toy_world(layout: int = 0, *, success_guard: bool = True) -> tuple[EpisodeWorld,
                                                                        ButtonPanel]:
    """
    Describe one toy episode; every layout is the same panel (the index is only recorded).

    :param layout: layout index, for the record.
    :param success_guard: stop a cell before a press once the task succeeded.
    :returns: the world and its panel.
    """
    panel = ButtonPanel()
    card = TaskCard(task=TOY_TASK, instruction='Press the red button first.',
                    robot_state='three buttons: red, green, blue')
    world = EpisodeWorld(task=TOY_TASK, seed=0, layout=layout, card=card,
                         primitives={'press': panel.press}, acting=('press',),
                         success=panel.success, score=lambda: float(panel.success()),
                         success_guard=success_guard)
    return world, panel

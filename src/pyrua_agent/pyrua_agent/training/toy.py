"""
The toy world: three buttons, no robot. Solved when the first button pressed is the red one.

Registered as ``WORLDS['toy']`` (task ``'press_red'``) when this module is imported, which
``pyrua_agent.training`` does.

It exists so the whole training path (planner, prompt, sandboxed cell worker, rollout engine,
loss, optimizer) can be checked for learning in minutes on a CPU with the tiny policy
(``tiny.build_tiny_policy`` with ``TOY_CELLS``): a random policy over those cells solves it
about a quarter of the time, and GRPO must raise that. The episode is an ordinary code-agent
episode; only the world is small.
"""

from __future__ import annotations

import threading
from typing import Any

from ..episode import EpisodeSpec, EpisodeWorld, WORLDS
from ..planners.base import TaskCard
from ..runtime.transport import InProcessTransport
from ..world import OpenedWorld, RecordedTransport

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


def open_toy(spec: EpisodeSpec, observer: Any | None = None) -> OpenedWorld:
    """
    Open the toy world for ``spec`` (registered as ``WORLDS['toy']``).

    Every layout is the same panel; the seed and layout index are only recorded.

    :param spec: the episode (task must be ``'press_red'``).
    :param observer: a recorder: gets every press goal and result.
    :returns: the world; its panel is ``opened.world.primitives['press'].__self__``.
    :raises ValueError: for another task.
    """
    if spec.task != TOY_TASK:
        raise ValueError(f'toy world task {spec.task!r} vs {TOY_TASK!r}, its only task')
    panel = ButtonPanel()
    primitives = {'press': panel.press}
    transport = InProcessTransport(primitives)
    if observer is not None:
        transport = RecordedTransport(transport, primitives, observer)
    card = TaskCard(task=TOY_TASK, instruction=spec.instruction or 'Press the red button first.',
                    robot_state='three buttons: red, green, blue')
    world = EpisodeWorld(task=TOY_TASK, seed=spec.seed, layout=spec.layout, card=card,
                         primitives=primitives, acting=('press',), success=panel.success,
                         score=lambda: float(panel.success()),
                         success_guard=spec.success_guard, transport=transport)
    return OpenedWorld(world=world, close=lambda: None)


WORLDS['toy'] = open_toy

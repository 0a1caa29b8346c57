"""
The toy world: three buttons, no robot. Solved when the first button pressed is the red one.

Registered as world ``'toy'`` (``TOY``, named in ``pyrua_lab``'s ``pyrua.worlds`` entry
points); it owns the task ``'press_red'``.

It exists so the whole training path (planner, prompt, sandboxed cell worker, rollout engine,
loss, optimizer) can be checked for learning in minutes on a CPU with the tiny policy
(``tiny.build_tiny_policy`` with ``TOY_CELLS``): a random policy over those cells solves it
about a quarter of the time, and GRPO must raise that. The episode is an ordinary code-agent
episode; only the world is small.
"""

from __future__ import annotations

import threading

from pyrua_primitives.world import EvaluatorHooks, WorldEntry, WorldParts, WorldSpec

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


def open_toy(spec: WorldSpec) -> WorldParts:
    """
    Open the toy world for ``spec`` (registered as world ``'toy'``).

    Every layout is the same panel; the seed and layout index are only recorded.

    :param spec: the episode (task must be ``'press_red'``).
    :returns: the world; its panel is ``handle`` (and ``primitives['press'].__self__`` of
        the episode world).
    :raises ValueError: for another task.
    """
    if spec.task != TOY_TASK:
        raise ValueError(f'toy world task {spec.task!r} vs {TOY_TASK!r}, its only task')
    panel = ButtonPanel()
    hooks = EvaluatorHooks(success=panel.success, score=lambda: float(panel.success()))
    return WorldParts(instruction=spec.instruction or 'Press the red button first.',
                      hooks=hooks, providers={'press': panel.press}, acting=('press',),
                      robot_state='three buttons: red, green, blue', handle=panel)


TOY = WorldEntry(name='toy', opener=open_toy, owns=lambda task: task == TOY_TASK,
                 summary="three buttons, no robot (task 'press_red'): the trainer's check")

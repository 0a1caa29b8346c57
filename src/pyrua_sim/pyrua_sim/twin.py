"""
Load the simulated twin of one task layout: the station, its evaluator, the instruction.

``load_twin`` is what the CLI and the evaluation harness call. The agent side gets only
``twin.station`` (a Station); ``twin.evaluator`` stays with the harness (DESIGN.md rule 4).
"""

from __future__ import annotations

from .config import StationConfig
from .evaluator import SimEvaluator
from .layout import Layout
from .scene import build_scene
from .station import MujocoStation
from .tasks import get_task, TaskDef


class Twin:
    """
    One task layout on the MuJoCo station: ``station``, ``evaluator``, ``layout``.

    Use ``reset`` to move to another layout: the scene is rebuilt (objects differ) and
    loaded into the same station object, so an agent's reference to it stays valid.
    """

    def __init__(
        self, task: TaskDef, layout: Layout, config: StationConfig | None = None
    ) -> None:
        self.task = task
        self.layout = layout
        self.station = MujocoStation(build_scene(layout), config)
        self.evaluator = SimEvaluator(self.station, layout, task)

    @property
    def instruction(self) -> str:
        """Return the task instruction generated from the layout."""
        return self.layout.instruction

    def reset(self, seed: int | None = None, index: int | None = None) -> Twin:
        """
        Rebuild the twin for another layout of the same task (or the same one afresh).

        :param seed: layout seed (default: keep the current one).
        :param index: layout index (default: keep the current one).
        :returns: this twin, with the same station object at the new layout's start (clock
            at 0, arms at home) and a fresh evaluator.
        :raises LayoutError: (a ValueError) for a seed or index out of range.
        """
        seed = self.layout.seed if seed is None else seed
        index = self.layout.index if index is None else index
        layout = self.task.sample_layout(seed, index)
        if layout == self.layout:
            self.station.reset()
        else:
            self.station.load_model(build_scene(layout))
        self.layout = layout
        self.evaluator = SimEvaluator(self.station, layout, self.task)
        return self

    def close(self) -> None:
        """Release the station's renderers (OpenGL contexts)."""
        self.station.close()

    def __enter__(self) -> Twin:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        layout = self.layout
        return (f'Twin({layout.task!r}, seed={layout.seed}, index={layout.index}: '
                f'{layout.instruction!r})')


def load_twin(
    task: str, seed: int, index: int, config: StationConfig | None = None
) -> Twin:
    """
    Sample layout ``(seed, index)`` of ``task`` and build its station and evaluator.

    :param task: a registered task name (see ``pyrua_sim.tasks.TASKS``).
    :param seed: 0..999.
    :param index: 0..49 (Generalization tasks: 25..49 randomized).
    :param config: the station configuration (None: defaults).
    :returns: the Twin.
    :raises ValueError: for an unknown task, naming the valid ones.
    :raises LayoutError: (a ValueError) for a seed or index out of range.
    :raises UnreachableLayoutError: when no valid layout can be sampled.
    """
    definition = get_task(task)
    return Twin(definition, definition.sample_layout(seed, index), config)

"""
The World seam beside ``Station``: what a world hands an episode, and the one world registry.

A world is a Station (or, for a world without a robot, its own primitives), the evaluator
hooks the model never sees (DESIGN.md rule 4), the task instruction, the privileged
providers a spec may ask for (a benchmark's ground-truth ``locate``) and a ``close``.
The agent assembles the episode from it (``pyrua_agent.episode.run_episode_spec``: the
primitive library, the recording and the task card); a world never builds those itself.

Every world registers where it is defined: a ``WorldEntry`` object in its own module,
named in its package's ``pyrua.worlds`` entry points (``setup.py``), e.g.
``twin = pyrua_sim.twin_world:TWIN``. ``world_entry`` loads one by name, ``world_of``
holds the task -> world rule (the world whose ``owns`` claims the task, else the twin).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
import threading
from types import MappingProxyType
from typing import Any, Protocol

from .naming import unknown_name
from .station import Station

ENTRY_POINT_GROUP = 'pyrua.worlds'
DEFAULT_WORLD = 'twin'


@dataclass(frozen=True, kw_only=True)
class EvaluatorHooks:
    """
    The evaluator side of a world; none of it reaches the primitives or the model.

    :param success: the task's success check (None: unknown, e.g. a real station).
    :param score: the staged process reward in [0, 1] (None: unknown).
    :param after_acting: called after each acting primitive (the twin's evaluator keeps a
        history of the scene this way).
    :param unmet: why the task is not solved now, one line per condition (None: unknown).
    :param after_cell: called with each cell's result (a replay advances its verdict).
    """

    success: Callable[[], bool] | None = None
    score: Callable[[], float] | None = None
    after_acting: Callable[[], object] | None = None
    unmet: Callable[[], tuple[str, ...]] | None = None
    after_cell: Callable[[Any], object] | None = None


class WorldSpec(Protocol):
    """What a world opener reads of an episode spec (``pyrua_agent.episode.EpisodeSpec``)."""

    task: str
    seed: int
    layout: int
    instruction: str
    station: object | None
    library: Any


class World(Protocol):
    """
    One opened world, ready for one episode; ``close`` releases it.

    ``station`` is None for a world without a robot (a replay, the toy world): then
    ``providers`` are all its primitives and ``robot_state`` / ``card_images`` its card.
    """

    instruction: str
    station: Station | None
    hooks: EvaluatorHooks
    providers: Mapping[str, Callable[..., Any]]
    segmenter: object | None

    def close(self) -> None:
        """Release the world (the twin's renderer, a benchmark environment)."""
        ...


def _nothing() -> None:
    return None


@dataclass(frozen=True, kw_only=True, repr=False)
class WorldParts:
    """
    The plain ``World``: the parts one opener hands over.

    :param instruction: the task instruction shown on the card.
    :param station: the hardware boundary (None: a world without a robot).
    :param hooks: the evaluator side.
    :param providers: primitives that replace or add to the library's (a privileged
        ``oracle`` locate, installed only when the spec asks for it), or all of them when
        there is no station.
    :param segmenter: the library's segmenter (None: the spec's).
    :param acting: the acting primitives (None: the library's ``ACTING``).
    :param robot_state: the card's robot state (None: the station's arm poses).
    :param card_images: the card's ``(camera, rgb)`` images (None: the station's).
    :param identity: ``(task, seed, layout)`` when the world knows better than the spec
        (a replay: the recorded episode's).
    :param transport: builds the runtime's transport from the primitives (None: in
        process; the agent node's sends ROS actions).
    :param handle: the world object behind it, for tests and benchmarks (the ``Twin``).
    :param on_close: releases the world.
    """

    instruction: str
    station: Station | None = None
    hooks: EvaluatorHooks = field(default_factory=EvaluatorHooks)
    providers: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    segmenter: object | None = None
    acting: tuple[str, ...] | None = None
    robot_state: str | None = None
    card_images: tuple[tuple[str, Any], ...] | None = None
    identity: tuple[str, int, int] | None = None
    transport: Callable[[Mapping[str, Callable[..., Any]]], Any] | None = None
    handle: object | None = None
    on_close: Callable[[], None] = _nothing

    def __repr__(self) -> str:
        where = type(self.station).__name__ if self.station is not None else 'no station'
        return f'WorldParts({where}, providers={sorted(self.providers)})'

    def close(self) -> None:
        """Release the world."""
        self.on_close()


@dataclass(frozen=True, kw_only=True)
class WorldEntry:
    """
    One registered world.

    :param name: the ``EpisodeSpec.world`` name.
    :param opener: ``(spec) -> World``.
    :param owns: whether a task name belongs to this world (the task -> world rule).
    :param summary: one line for listings.
    """

    name: str
    opener: Callable[[WorldSpec], World]
    owns: Callable[[str], bool] = field(default=lambda task: False, repr=False)
    summary: str = ''


_ENTRIES: dict[str, WorldEntry] = {}
_LOCK = threading.Lock()


def _entry_points() -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def register_world(entry: WorldEntry) -> WorldEntry:
    """
    Register a world defined outside an installed package's entry points (a test's).

    :raises ValueError: when the name is taken by another entry.
    """
    if entry.name in _entry_points():
        world_entry(entry.name)  # an installed world's name is taken by its own entry
    with _LOCK:
        taken = _ENTRIES.get(entry.name)
        if taken is not None and taken is not entry:
            raise ValueError(f'world {entry.name!r} is registered already ({taken.summary}); '
                             'pick another name')
        _ENTRIES[entry.name] = entry
    return entry


def world_names() -> tuple[str, ...]:
    """Return the registered world names (entry points and ``register_world``)."""
    return tuple(sorted({*_entry_points(), *_ENTRIES}))


def world_entry(name: str) -> WorldEntry:
    """
    Return the world registered as ``name``, loading its module on first use.

    :raises ValueError: for an unknown name, listing the registered ones.
    :raises TypeError: when the entry point does not name a ``WorldEntry``.
    """
    with _LOCK:
        if name in _ENTRIES:
            return _ENTRIES[name]
    points = _entry_points()
    if name not in points:
        raise ValueError(unknown_name('world', name, world_names()))
    entry = points[name].load()
    if not isinstance(entry, WorldEntry) or entry.name != name:
        raise TypeError(f'entry point {points[name].value!r} of {ENTRY_POINT_GROUP!r} is '
                        f'{entry!r}, not the WorldEntry {name!r}; fix its setup.py')
    with _LOCK:
        _ENTRIES.setdefault(name, entry)
        return _ENTRIES[name]


def worlds() -> Mapping[str, WorldEntry]:
    """Return every registered world by name (loads them all)."""
    return MappingProxyType({name: world_entry(name) for name in world_names()})


def world_of(task: str) -> str:
    """Return the world a task belongs to: the one whose ``owns`` claims it, else the twin."""
    owners = [entry.name for entry in worlds().values() if entry.owns(task)]
    if len(owners) > 1:
        raise ValueError(f'task {task!r} is claimed by worlds {owners}; set the world '
                         'explicitly')
    return owners[0] if owners else DEFAULT_WORLD


def open_world(name: str, spec: WorldSpec) -> World:
    """Open world ``name`` for ``spec``."""
    return world_entry(name).opener(spec)

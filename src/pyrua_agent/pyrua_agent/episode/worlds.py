"""
The agent side of the World seam: one opened ``World`` -> the ``EpisodeWorld`` a loop runs.

``episode_world`` is the one place where the agent side meets the evaluator side, for
every world (``pyrua_primitives.world``: the twin, LIBERO, a replay, the toy world, a ROS
station): the primitives get only a Station (through ``PrimitiveLibrary``); the success
check, the score and the evaluator's history ticks come in as ``EvaluatorHooks`` the model
never sees (DESIGN.md rule 4). With an observer (``run_episode_spec`` passes the recorder)
the library records the frames and joint states it reads and ``RecordedTransport`` every
goal and result; no world wraps anything itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
import functools
from typing import Any, Protocol, TYPE_CHECKING

from pyrua_primitives.library import ACTING, LibraryConfig, PrimitiveLibrary
from pyrua_primitives.results import GripperResult
from pyrua_primitives.station import Station
from pyrua_primitives.world import EvaluatorHooks, open_world, World, WorldParts

from .loop import EpisodeWorld
from ..planners.base import TaskCard
from ..prompt.station_facts import station_facts
from ..recording.observer import EpisodeObserver
from ..recording.transport import RecordedTransport
from ..runtime.transport import InProcessTransport, TappedTransport, Transport

if TYPE_CHECKING:
    from .spec import EpisodeSpec

TransportFactory = Callable[[Mapping[str, Callable[..., Any]]], Transport]


def robot_state_text(library: PrimitiveLibrary) -> str:
    """Return the task card's robot state: each arm's pose and gripper opening."""
    return '\n'.join(repr(library.pose(arm)) for arm in library.arms)


def _observed(func: Callable[..., Any], observe: Callable[[], object]) -> Callable[..., Any]:
    """Wrap an acting primitive so the evaluator advances its history after each call."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        finally:
            observe()

    return wrapper


def episode_world(spec: EpisodeSpec, world: World,
                  observer: EpisodeObserver | None = None) -> EpisodeWorld:
    """
    Describe one episode over an opened ``world`` for ``run_episode``.

    :param spec: the episode (task, seed, layout, library settings, guard, card cameras).
    :param world: the opened world.
    :param observer: a recorder: gets every frame and joint state the library reads and
        every primitive goal and result.
    :returns: the EpisodeWorld.
    """
    hooks: EvaluatorHooks = world.hooks
    station: Station | None = world.station
    robot_state = getattr(world, 'robot_state', None)
    images = getattr(world, 'card_images', None)
    facts = ''
    if station is not None:
        library = PrimitiveLibrary(station, spec.library, segmenter=world.segmenter,
                                   observer=observer)
        found = {**library.primitives(), **world.providers}
        if robot_state is None:
            robot_state = robot_state_text(library)
        if images is None:
            images = tuple((cam, library.image(cam))
                           for cam in spec.card_cameras or library.cameras)
        facts = station_facts(station, library.config.safety)
        if hasattr(observer, 'arm_bases'):  # the recorder: /tf_static, as a driver publishes it
            observer.arm_bases([station.arm_base(arm) for arm in library.arms], station.time_s())
    else:
        found = dict(world.providers)
    acting = getattr(world, 'acting', None)
    if acting is None:
        acting = tuple(name for name in ACTING if name in found)
    primitives = {}
    for name, func in found.items():
        if name in acting and hooks.after_acting is not None:
            func = _observed(func, hooks.after_acting)
        primitives[name] = func
    remote = getattr(world, 'transport', None)
    runtime_transport = (remote or InProcessTransport)(primitives)
    if remote is not None and station is not None:
        # Gripper commands run elsewhere: this library's pose(arm).held must know of them.
        runtime_transport = TappedTransport(runtime_transport, _noted_by(library))
    if observer is not None:
        runtime_transport = RecordedTransport(runtime_transport, primitives, observer)
    task, seed, layout = getattr(world, 'identity', None) or (spec.task, spec.seed, spec.layout)
    card = TaskCard(task=task, instruction=world.instruction, robot_state=robot_state or '',
                    station_facts=facts, images=images or ())
    return EpisodeWorld(task=task, seed=seed, layout=layout, card=card, primitives=primitives,
                        acting=acting, success=hooks.success, score=hooks.score,
                        success_guard=spec.success_guard, transport=runtime_transport,
                        after_cell=hooks.after_cell, unmet=hooks.unmet)


def _noted_by(library: PrimitiveLibrary) -> Callable[[str, Any], None]:
    def note(_name: str, value: Any) -> None:
        if isinstance(value, GripperResult):
            library.note_gripper(value)
    return note


class WorldEvaluator(Protocol):
    """
    An evaluator reached from outside the world's process (the sim node's services).

    ``reset`` moves the world to the spec's layout and returns its instruction.
    """

    def reset(self, task: str, seed: int, layout: int) -> str:
        """Reset the world to ``(task, seed, layout)``; return the task instruction."""
        ...

    def success(self) -> bool:
        """Return whether the task has succeeded."""
        ...

    def score(self) -> float:
        """Return the staged process reward in [0, 1]."""
        ...


def open_station(spec: EpisodeSpec, observer: EpisodeObserver | None = None, *,
                 station: Station, evaluator: WorldEvaluator | None = None,
                 transport: TransportFactory | None = None,
                 close: Callable[[], None] = lambda: None) -> WorldParts:
    """
    Return the world of a running Station, e.g. the agent node's ``RosStation``.

    :param spec: the episode; ``spec.instruction`` wins over the evaluator's.
    :param observer: unused here (the opener contract; ``run_episode_spec`` attaches it).
    :param station: the hardware boundary the primitives run on.
    :param evaluator: the world's evaluator (None on a real station: no success check).
    :param transport: builds the runtime's transport from the primitives (None: in process).
    :param close: releases what the caller opened for this episode.
    :returns: the world.
    :raises ValueError: for an LLM planner without an instruction from the spec or the
        evaluator.
    """
    instruction, hooks = spec.instruction, EvaluatorHooks()
    if evaluator is not None:
        instruction = instruction or evaluator.reset(spec.task, spec.seed, spec.layout)
        hooks = EvaluatorHooks(success=evaluator.success, score=evaluator.score)
    if not instruction and spec.uses_endpoint:
        raise ValueError(f"instruction '' for task {spec.task!r} without an evaluator to "
                         'give one; set the instruction (agent_node: instruction parameter)')
    return WorldParts(instruction=instruction, station=station, hooks=hooks,
                      transport=transport, on_close=close)


def open_twin_world(task: str, seed: int, layout: int, *,
                    library_config: LibraryConfig | None = None,
                    station_config: object | None = None,
                    observer: EpisodeObserver | None = None,
                    success_guard: bool = True) -> tuple[EpisodeWorld, Any]:
    """
    Load a task layout on the twin and describe its episode (tests and benchmarks).

    The same world ``run_episode_spec`` builds for ``EpisodeSpec(task, seed, layout)``.

    :param task: task name (``pyrua_sim.tasks.TASKS``).
    :param seed: layout seed.
    :param layout: layout index.
    :param library_config: primitive library settings.
    :param station_config: the twin's station settings.
    :param observer: recorder hooks for frames, joint states, goals and results.
    :param success_guard: stop cells before acting once the task succeeded.
    :returns: the world and the ``Twin`` (the caller closes the twin).
    """
    from .spec import EpisodeSpec

    spec = EpisodeSpec(task=task, seed=seed, layout=layout, record=False,
                       library=library_config or LibraryConfig(), station=station_config,
                       success_guard=success_guard)
    opened = open_world('twin', spec)
    try:
        return episode_world(spec, opened, observer), opened.handle
    except BaseException:
        opened.close()
        raise


def open_spec_world(spec: EpisodeSpec) -> tuple[EpisodeWorld, Callable[[], None]]:
    """
    Open ``spec.world`` and describe its episode without recording (a prompt, a reference).

    :returns: the world and its ``close``.
    :raises ValueError: for an unknown world, listing the registered ones.
    """
    opened = open_world(spec.world, spec)
    try:
        return episode_world(spec, opened), opened.close
    except BaseException:
        opened.close()
        raise

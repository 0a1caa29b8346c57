"""
The world side of an episode: any Station with its evaluator hooks, and the embedded twin.

``station_world`` is the one place where the agent side meets the evaluator side, for
every world: the primitives get only a Station (through ``PrimitiveLibrary``); the success
check, the score and the evaluator's history ticks come in as ``EvaluatorHooks`` the model
never sees (DESIGN.md rule 4). The twin (``open_twin``) and the ROS agent node (a
``RosStation`` and the sim node's services) both build their episode with it, so their
recordings hold the same topics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
import functools
import inspect
import threading
import time
from typing import Any, Protocol, TYPE_CHECKING

from pyrua_primitives.library import ACTING, LibraryConfig, PrimitiveLibrary
from pyrua_primitives.station import Station

from .episode.loop import EpisodeWorld
from .planners.base import TaskCard
from .prompt.station_facts import station_facts
from .runtime.robo import RUNTIME_KEYWORDS
from .runtime.transport import FeedbackCallback, GoalHandle, InProcessTransport, Transport

if TYPE_CHECKING:
    from pyrua_sim.twin import Twin

    from .episode.spec import EpisodeSpec

TransportFactory = Callable[[Mapping[str, Callable[..., Any]]], Transport]


@dataclass(frozen=True, kw_only=True)
class EvaluatorHooks:
    """
    The evaluator side of a world; none of it reaches the primitives or the model.

    :param success: the task's success check (None: unknown, e.g. a real station).
    :param score: the staged process reward in [0, 1] (None: unknown).
    :param after_acting: called after each acting primitive (the twin's evaluator keeps a
        history of the scene this way).
    :param unmet: why the task is not solved now, one line per condition (None: unknown).
    """

    success: Callable[[], bool] | None = None
    score: Callable[[], float] | None = None
    after_acting: Callable[[], object] | None = None
    unmet: Callable[[], tuple[str, ...]] | None = None


@dataclass(frozen=True, kw_only=True)
class OpenedWorld:
    """
    A world ready for one episode; call ``close`` when the episode is over.

    :param world: what the episode loop needs.
    :param close: releases the world (the twin's renderer, a node's clients).
    """

    world: EpisodeWorld
    close: Callable[[], None]


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


class _RecordedGoal:
    """A goal whose result is reported to the observer the first time it is read."""

    def __init__(self, goal: GoalHandle, observer: Any, goal_id: int) -> None:
        self.name = goal.name
        self._goal = goal
        self._observer = observer
        self._goal_id = goal_id
        self._started = time.monotonic()
        self._finished: float | None = None
        self._reported = False
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f'<recorded {self._goal!r}>'

    def _stamp(self, done: bool) -> bool:
        if done and self._finished is None:
            self._finished = time.monotonic()
        return done

    def done(self) -> bool:
        """Return True once the goal has a result."""
        return self._stamp(self._goal.done())

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait up to ``timeout_s`` seconds; return True when done."""
        return self._stamp(self._goal.wait(timeout_s))

    def cancel(self, reason: str = 'cancelled') -> None:
        """Cancel the goal."""
        self._goal.cancel(reason)

    def result(self) -> Any:
        """Return (or raise) the goal's result, recording it once."""
        self._stamp(self._goal.done())
        try:
            value = self._goal.result()
        except Exception as exc:
            self._report(None, f'{type(exc).__name__}: {exc}')
            raise
        self._report(value, None)
        return value

    def _report(self, value: Any, error: str | None) -> None:
        with self._lock:
            if self._reported:
                return
            self._reported = True
        end = self._finished if self._finished is not None else time.monotonic()
        self._observer.primitive_result(self._goal_id, value, duration_s=end - self._started,
                                        error=error)


class RecordedTransport:
    """
    A transport whose every goal (by keyword) and result reach an episode observer.

    Recording at the transport, not at the primitive, records the same goals whether they
    run in this process or as ROS action goals on the primitives node.

    :param transport: the transport the runtime would use.
    :param primitives: the primitives (their signatures name the arguments).
    :param observer: the recorder (``primitive_goal`` / ``primitive_result``).
    """

    def __init__(self, transport: Transport, primitives: Mapping[str, Callable[..., Any]],
                 observer: Any) -> None:
        self._transport = transport
        self._signatures = {name: inspect.signature(func) for name, func in primitives.items()}
        self._observer = observer

    def names(self) -> tuple[str, ...]:
        """Return the primitive names the wrapped transport runs."""
        return self._transport.names()

    def send_goal(self, name: str, args: tuple, kwargs: dict,
                  feedback: FeedbackCallback | None = None) -> GoalHandle:
        """Record the goal, start it, and return a handle that records its result."""
        signature = self._signatures.get(name)
        try:
            bound = signature.bind(*args, **kwargs) if signature is not None else None
        except TypeError:
            bound = None  # the transport raises the clear TypeError itself
        if bound is None or RUNTIME_KEYWORDS & set(kwargs):
            return self._transport.send_goal(name, args, kwargs, feedback)
        goal_id = self._observer.primitive_goal(name, (), dict(bound.arguments))
        try:
            goal = self._transport.send_goal(name, args, kwargs, feedback)
        except Exception as exc:
            self._observer.primitive_result(goal_id, None, duration_s=0.0,
                                            error=f'{type(exc).__name__}: {exc}')
            raise
        return _RecordedGoal(goal, self._observer, goal_id)


def station_world(spec: EpisodeSpec, library: PrimitiveLibrary, *, instruction: str,
                  hooks: EvaluatorHooks | None = None, observer: Any | None = None,
                  transport: TransportFactory = InProcessTransport,
                  overrides: Mapping[str, Callable[..., Any]] | None = None) -> EpisodeWorld:
    """
    Describe one episode over ``library``'s Station for ``run_episode``.

    :param spec: the episode (task, seed, layout, guard, card cameras).
    :param library: the primitives over the world's Station (give it the observer too, so
        it records the frames and joint states it reads).
    :param instruction: the task instruction shown on the card.
    :param hooks: the evaluator side (None: no success check, no score).
    :param observer: a recorder: gets every primitive goal and result.
    :param transport: builds the runtime's transport from the primitives (in process by
        default; the agent node's sends actions to the primitives node).
    :param overrides: primitives that replace or add to the library's (a world's
        privileged ``oracle`` locate, installed only when the spec asks for it).
    :returns: the EpisodeWorld.
    """
    hooks = hooks or EvaluatorHooks()
    primitives = {}
    for name, func in {**library.primitives(), **(overrides or {})}.items():
        if name in ACTING and hooks.after_acting is not None:
            func = _observed(func, hooks.after_acting)
        primitives[name] = func
    runtime_transport = transport(primitives)
    if observer is not None:
        runtime_transport = RecordedTransport(runtime_transport, primitives, observer)
    if hasattr(observer, 'arm_bases'):  # the recorder: /tf_static, as a driver publishes it
        observer.arm_bases([library.station.arm_base(arm) for arm in library.arms],
                           library.station.time_s())
    card = TaskCard(task=spec.task, instruction=instruction,
                    robot_state=robot_state_text(library),
                    station_facts=station_facts(library.station),
                    images=tuple((cam, library.image(cam))
                                 for cam in spec.card_cameras or library.cameras))
    return EpisodeWorld(task=spec.task, seed=spec.seed, layout=spec.layout, card=card,
                        primitives=primitives, acting=ACTING, success=hooks.success,
                        score=hooks.score, success_guard=spec.success_guard,
                        transport=runtime_transport, unmet=hooks.unmet)


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


def open_station(spec: EpisodeSpec, observer: Any | None = None, *, station: Station,
                 evaluator: WorldEvaluator | None = None,
                 transport: TransportFactory = InProcessTransport,
                 close: Callable[[], None] = lambda: None) -> OpenedWorld:
    """
    Describe one episode on a running Station, e.g. the agent node's ``RosStation``.

    :param spec: the episode; ``spec.instruction`` wins over the evaluator's.
    :param observer: recorder hooks for frames, joint states, goals and results.
    :param station: the hardware boundary the primitives run on.
    :param evaluator: the world's evaluator (None on a real station: no success check).
    :param transport: builds the runtime's transport from the primitives.
    :param close: releases what the caller opened for this episode.
    :returns: the world.
    :raises ValueError: for an LLM planner without an instruction from the spec or the
        evaluator.
    """
    instruction, hooks = spec.instruction, None
    if evaluator is not None:
        instruction = instruction or evaluator.reset(spec.task, spec.seed, spec.layout)
        hooks = EvaluatorHooks(success=evaluator.success, score=evaluator.score)
    if not instruction and spec.uses_endpoint:
        raise ValueError(f"instruction '' for task {spec.task!r} without an evaluator to "
                         'give one; set the instruction (agent_node: instruction parameter)')
    library = PrimitiveLibrary(station, spec.library, observer=observer)
    world = station_world(spec, library, instruction=instruction, hooks=hooks,
                          observer=observer, transport=transport)
    return OpenedWorld(world=world, close=close)


def open_twin(spec: EpisodeSpec, observer: Any | None = None) -> OpenedWorld:
    """
    Load ``spec``'s task layout on the embedded MuJoCo twin and describe its episode.

    :param spec: the episode.
    :param observer: recorder hooks for frames, joint states, goals and results.
    :returns: the world; its ``close`` closes the twin.
    """
    world, twin = _twin_world(spec, observer)
    return OpenedWorld(world=world, close=twin.close)


def open_benchmark(spec: EpisodeSpec, observer: Any | None = None) -> OpenedWorld:
    """
    Load a benchmark task (``'libero_spatial/3'``) at init state ``spec.layout``.

    The instruction is the benchmark's, success its own check. With
    ``spec.library.segmenter == 'oracle'`` (allowed explicitly), ``locate`` is the
    benchmark's PRIVILEGED ground truth by object name and ``objects`` lists the names;
    the recorded spec says so.

    :param spec: the episode.
    :param observer: recorder hooks for frames, joint states, goals and results.
    :returns: the world; its ``close`` closes the benchmark environment.
    """
    from pyrua_sim.benchmarks import load

    bench = load(spec.task, spec.layout)
    try:
        world = benchmark_world(spec, bench, observer)
        return OpenedWorld(world=world, close=bench.close)
    except BaseException:
        bench.close()
        raise


def benchmark_world(spec: EpisodeSpec, bench: Any, observer: Any | None = None) -> EpisodeWorld:
    """
    Describe one episode on a loaded benchmark world (``pyrua_sim.benchmarks.load``).

    Benchmarks reuse one environment across init states: ``bench.reset(index=...)``, then
    this; ``open_benchmark`` is the same for a fresh environment.
    """
    overrides, segmenter = {}, None
    if spec.library.segmenter == 'oracle':
        overrides = {'locate': bench.oracle.locate, 'objects': bench.oracle.objects}
        segmenter = bench.oracle
    elif spec.library.segmenter == 'rgbd':  # NOT privileged: RGB-D frames + asset catalogue
        if not hasattr(bench, 'rgbd'):
            raise ValueError(f"perception 'rgbd' is not available on {spec.task!r}; it is "
                             'the LIBERO catalogue perception: use rgb or oracle here')
        overrides = {'locate': bench.rgbd.locate, 'objects': bench.rgbd.objects}
        segmenter = bench.rgbd
    library = PrimitiveLibrary(bench.station, spec.library, segmenter=segmenter,
                               observer=observer)
    evaluator = bench.evaluator
    hooks = EvaluatorHooks(success=evaluator.success, score=evaluator.score,
                           after_acting=evaluator.observe)
    return station_world(spec, library, instruction=spec.instruction or bench.instruction,
                         hooks=hooks, observer=observer, overrides=overrides)


def _twin_world(spec: EpisodeSpec, observer: Any | None) -> tuple[EpisodeWorld, Twin]:
    from pyrua_sim.twin import load_twin

    twin = load_twin(spec.task, spec.seed, spec.layout, spec.station)
    try:
        evaluator = twin.evaluator
        evaluator.observe()
        library = PrimitiveLibrary(twin.station, spec.library, observer=observer)
        hooks = EvaluatorHooks(success=evaluator.success, score=evaluator.score,
                               after_acting=evaluator.observe, unmet=evaluator.unmet)
        world = station_world(spec, library, instruction=spec.instruction or twin.instruction,
                              hooks=hooks, observer=observer)
        return world, twin
    except BaseException:
        twin.close()
        raise


def open_twin_world(task: str, seed: int, layout: int, *,
                    library_config: LibraryConfig | None = None,
                    station_config: object | None = None,
                    observer: object | None = None,
                    success_guard: bool = True) -> tuple[EpisodeWorld, Twin]:
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
    :returns: the world and the twin (the caller closes the twin).
    """
    from .episode.spec import EpisodeSpec

    spec = EpisodeSpec(task=task, seed=seed, layout=layout, record=False,
                       library=library_config or LibraryConfig(), station=station_config,
                       success_guard=success_guard)
    return _twin_world(spec, observer)

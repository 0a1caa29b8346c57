"""
Build an ``EpisodeWorld`` on the embedded MuJoCo twin: station, primitives, evaluator hooks.

This is the one place where the agent side meets the evaluator side: the primitives get
only ``twin.station`` (a Station); the success check, the score and the evaluator's
history ticks are wired in as hooks the model never sees (DESIGN.md rule 4).
"""

from __future__ import annotations

from collections.abc import Callable
import functools
import inspect
import time
from typing import Any

from pyrua_primitives.library import ACTING, LibraryConfig, PrimitiveLibrary
from pyrua_sim.twin import load_twin, Twin

from .episode import EpisodeWorld
from .planners.base import TaskCard
from .runtime.robo import RUNTIME_KEYWORDS

CARD_CAMERAS = ('head', 'left_wrist', 'right_wrist')


def _observed(func: Callable[..., Any], observe: Callable[[], object]) -> Callable[..., Any]:
    """Wrap an acting primitive so the evaluator advances its history after each call."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        finally:
            observe()

    return wrapper


def _recorded(name: str, func: Callable[..., Any], observer: Any) -> Callable[..., Any]:
    """Wrap a primitive so the recorder gets its goal (by keyword) and its result."""
    signature = inspect.signature(func)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return func(*args, **kwargs)  # the call itself raises the clear TypeError
        arguments = {k: v for k, v in bound.arguments.items() if k not in RUNTIME_KEYWORDS}
        goal_id = observer.primitive_goal(name, (), arguments)
        start = time.monotonic()
        try:
            result = func(*args, **kwargs)
        except Exception as exc:
            observer.primitive_result(goal_id, None, duration_s=time.monotonic() - start,
                                      error=f'{type(exc).__name__}: {exc}')
            raise
        observer.primitive_result(goal_id, result, duration_s=time.monotonic() - start)
        return result

    return wrapper


def robot_state_text(library: PrimitiveLibrary) -> str:
    """Return the task card's robot state: each arm's pose and gripper opening."""
    return '\n'.join(repr(library.pose(arm)) for arm in ('left', 'right'))


def twin_world(twin: Twin, library: PrimitiveLibrary, *, success_guard: bool = True,
               card_cameras: tuple[str, ...] = CARD_CAMERAS,
               observer: Any | None = None) -> EpisodeWorld:
    """
    Describe one episode on ``twin`` for ``run_episode``.

    :param twin: the loaded twin (station + evaluator + layout).
    :param library: primitives over ``twin.station``.
    :param success_guard: stop cells before acting once the task succeeded.
    :param card_cameras: cameras whose first images go on the task card.
    :param observer: a recorder: gets every primitive goal and result.
    :returns: the EpisodeWorld.
    """
    evaluator = twin.evaluator
    evaluator.observe()
    primitives = {}
    for name, func in library.primitives().items():
        if name in ACTING:
            func = _observed(func, evaluator.observe)
        if observer is not None:
            func = _recorded(name, func, observer)
        primitives[name] = func
    card = TaskCard(task=twin.layout.task, instruction=twin.instruction,
                    robot_state=robot_state_text(library),
                    images=tuple((cam, library.image(cam)) for cam in card_cameras))
    return EpisodeWorld(task=twin.layout.task, seed=twin.layout.seed, layout=twin.layout.index,
                        card=card, primitives=primitives, acting=ACTING,
                        success=evaluator.success, score=evaluator.score,
                        success_guard=success_guard)


def open_twin_world(task: str, seed: int, layout: int, *,
                    library_config: LibraryConfig | None = None,
                    station_config: object | None = None,
                    observer: object | None = None,
                    success_guard: bool = True) -> tuple[EpisodeWorld, Twin]:
    """
    Load a task layout on the twin and describe its episode; close the twin when done.

    :param task: task name (``pyrua_sim.tasks.TASKS``).
    :param seed: layout seed.
    :param layout: layout index.
    :param library_config: primitive library settings.
    :param station_config: the twin's station settings.
    :param observer: recorder hooks for frames, joint states, goals and results.
    :param success_guard: stop cells before acting once the task succeeded.
    :returns: the world and the twin (the caller closes the twin).
    """
    twin = load_twin(task, seed, layout, station_config)
    try:
        library = PrimitiveLibrary(twin.station, library_config, observer=observer)
        return twin_world(twin, library, success_guard=success_guard, observer=observer), twin
    except BaseException:
        twin.close()
        raise

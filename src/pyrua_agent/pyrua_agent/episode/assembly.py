"""
``run_episode_spec``: build the episode a spec describes, run it, record it, close it.

Every user path goes through here (DESIGN.md rule 6): the world is opened by name from
the world registry (``pyrua_primitives.world``; or by the opener a caller passes, as the
ROS agent node does); only here are the recorder and any live observers attached to the
primitive library, the runtime's transport and the model client; the planner is built
from the planner registry, and the loop runs to one end reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from importlib import resources
import logging
from pathlib import Path
import time
from typing import Any

from pyrua_primitives.world import World, world_entry

from .loop import EpisodeResult, EpisodeWorld, run_episode
from .recorded import run_recorded_episode
from .spec import EpisodeSpec
from .worlds import episode_world
from ..accounting import Ledger
from ..planners.base import Cell, Planner
from ..recording.observer import EpisodeObserver, EpisodeRecorder
from ..runtime import CellResult

_LOG = logging.getLogger(__name__)

WorldOpener = Callable[[EpisodeSpec, EpisodeObserver | None], World]
"""``(spec, observer or None) -> World``: opens the world of one episode (the observer is
for a world that feeds it itself, e.g. the agent node's ROS topics; the assembly here
attaches it to the library, the transport and the client)."""

OpenFailed = Callable[[EpisodeSpec, EpisodeRecorder | None, Exception, float], EpisodeResult]
"""``(spec, observer, error, wall_s) -> record``: the end of an episode whose world failed."""


def bundled_program(task: str) -> Path:
    """
    Return the path of the bundled reference program of ``task``.

    :raises FileNotFoundError: when the task has no bundled program, listing those that do.
    """
    folder = resources.files('pyrua_agent') / 'programs'
    if '/' in task:  # a benchmark task: its suite's program (LIBERO-PRO: the standard one)
        from pyrua_sim.benchmarks.libero.suites import base_suite

        folder = folder / 'libero'
        task = base_suite(task.partition('/')[0])
    path = folder / f'{task}.py'
    if not path.is_file():
        known = sorted(p.name[:-3] for p in folder.iterdir() if p.name.endswith('.py')
                       and not p.name.startswith('_')) if folder.is_dir() else []
        raise FileNotFoundError(f'no bundled program for task {task!r}; bundled: '
                                f'{", ".join(known)}; pass --script FILE')
    return Path(str(path))


def planner_source(spec: EpisodeSpec) -> Path | None:
    """Return the file ``spec``'s planner reads (the bundled program for a bare script)."""
    if spec.source:
        return Path(spec.source)
    if spec.planner == 'script':
        return bundled_program(spec.task)
    return None


def build_planner(spec: EpisodeSpec, world: EpisodeWorld, *,
                  recorder: EpisodeRecorder | None = None,
                  on_call: Callable[[Ledger], None] | None = None) -> Planner:
    """
    Build ``spec``'s planner for ``world`` from the planner registry.

    :param spec: the episode.
    :param world: the opened world (its primitives make the LLM planners' API reference).
    :param recorder: gets every LLM call (``RecordedChatClient``), when it has ``llm_call``.
    :param on_call: called with the planner's ledger after each counted LLM call.
    :returns: the planner.
    """
    from ..planners import make_planner

    if not spec.uses_endpoint:
        return make_planner(spec.planner, source=planner_source(spec))
    from ..accounting import PriceTable

    options: dict[str, Any] = {'prices': PriceTable.load(spec.prices_file),
                               'prompt': spec.prompt}
    if recorder is not None and hasattr(recorder, 'llm_call'):
        from ..recording import RecordedChatClient

        options['wrap_client'] = lambda client: RecordedChatClient(client, recorder)
    planner = make_planner(spec.planner, primitives=world.primitives, endpoint=spec.endpoint,
                           **options)
    if on_call is not None:
        planner.on_call = lambda _record: on_call(planner.ledger)
    return planner


def _observer(spec: EpisodeSpec,
              observers: Sequence[EpisodeRecorder | None]) -> EpisodeRecorder | None:
    """Return the episode's observer: the recorder (if recording) first, then the others."""
    chain = [o for o in observers if o is not None]
    if spec.record:
        from ..recording import default_run_dir, Recorder

        chain.insert(0, Recorder(default_run_dir(spec.task, spec.seed, spec.layout,
                                                 root=spec.runs_dir)))
    if not chain:
        return None
    if len(chain) == 1:
        return chain[0]
    from ..live import ObserverFanout

    return ObserverFanout(*chain)


def run_episode_spec(spec: EpisodeSpec, *, opener: WorldOpener | None = None,
                     observers: Sequence[EpisodeRecorder] = (),
                     on_begin: Callable[[EpisodeWorld], None] | None = None,
                     on_cell: Callable[[Cell, CellResult], None] | None = None,
                     on_call: Callable[[Ledger], None] | None = None,
                     open_failed: OpenFailed | None = None,
                     progress: bool = False) -> EpisodeResult:
    """
    Build and run the episode ``spec`` describes; return its record.

    With ``spec.record`` the run folder (``result.run_dir``) holds a rosbag2 bag and a
    transcript of everything: camera frames, joint states, TF, primitive goals and results,
    cells and LLM calls.

    :param spec: the episode.
    :param opener: opens the world (default: the registered ``spec.world``); the ROS agent node
        passes one over its ROS station and the sim node's services.
    :param observers: further episode observers (a live view), after the recorder.
    :param on_begin: called with the opened world before the first cell (progress display).
    :param on_cell: called after each cell with the cell and its result.
    :param on_call: called with the planner's ledger after each counted LLM call.
    :param progress: show a local model's progress live on the terminal (``pyrua run``);
        nothing of it is recorded.
    :param open_failed: when the world fails to open or to describe its first card, called
        with ``(spec, observer, error, wall_s)``; its record is returned instead of raising
        (the agent node: end reason ``infra_error``, recorded).
    :returns: the episode record (``run_dir`` set when recorded).
    :raises ValueError: for an unknown world name, listing the registered ones.
    """
    if spec.uses_endpoint:
        from ..llm.local import serving

        # A local model (--model local) is served for this episode unless the spec already
        # points at a server (pyrua eval starts one for all its episodes).
        with serving(spec.endpoint, progress=progress) as endpoint:
            return _run_spec(replace(spec, endpoint=endpoint), opener, observers, on_begin,
                             on_cell, on_call, open_failed)
    return _run_spec(spec, opener, observers, on_begin, on_cell, on_call, open_failed)


def _run_spec(spec: EpisodeSpec, opener: WorldOpener | None,
              observers: Sequence[EpisodeRecorder],
              on_begin: Callable[[EpisodeWorld], None] | None,
              on_cell: Callable[[Cell, CellResult], None] | None,
              on_call: Callable[[Ledger], None] | None,
              open_failed: OpenFailed | None) -> EpisodeResult:
    if opener is None:
        entry = world_entry(spec.world)  # refuses an unknown world, listing the registered
        opener = lambda spec, _observer: entry.opener(spec)  # noqa: E731
    observer = _observer(spec, observers)
    started = time.monotonic()
    try:
        opened = opener(spec, observer)
        try:
            world = episode_world(spec, opened, observer)
        except BaseException:
            opened.close()
            raise
    except Exception as exc:
        if open_failed is None:
            if observer is not None:
                observer.close()
            raise
        result = open_failed(spec, observer, exc, time.monotonic() - started)
        if observer is not None:
            observer.close()
        return result
    except BaseException:
        if observer is not None:
            observer.close()
        raise
    run_dir = getattr(observer, 'run_dir', None) if spec.record else None
    handed_over = False  # run_recorded_episode closes the observer itself
    try:
        planner = build_planner(spec, world, recorder=observer, on_call=on_call)
        if on_begin is not None:
            on_begin(world)
        run = {'budgets': spec.budgets, 'cell_timeout_s': spec.cell_timeout_s,
               'max_output_chars': spec.max_output_chars, 'on_cell': on_cell,
               'sandbox': spec.sandbox}
        if observer is not None:
            handed_over = True
            result = run_recorded_episode(world, planner, observer, config=spec.to_record(),
                                          **run)
        else:
            result = run_episode(world, planner, **run)
    except BaseException:
        if observer is not None and not handed_over:
            _close_quietly(observer)
        raise
    finally:
        opened.close()
    return replace(result, run_dir=None if run_dir is None else str(run_dir))


def _close_quietly(observer: EpisodeRecorder) -> None:
    """Close an observer after a failure before the episode started (keep the first error)."""
    try:
        observer.close()
    except Exception:
        _LOG.warning('closing the recorder after a failed start failed too', exc_info=True)

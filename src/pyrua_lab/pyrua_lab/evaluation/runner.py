"""
One evaluation episode in a worker process: ``run_job(job) -> record``.

The episode goes through the one assembly ``pyrua run`` uses (``EpisodeSpec`` and
``run_episode_spec``), recorded as usual under the run's ``runs/<episode_id>/``; the record
is the ``pyrua run --json`` dictionary plus the job's keys (interface, dimension, suite,
labels, attempt, ...). ``run_job`` never raises for
an episode: a failure outside the episode loop (the simulator or the worker crashed, a
loopback server failed) becomes an ``infra_error`` record, which the executor retries once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
import logging
from pathlib import Path
import time
import traceback
from typing import Any

from pyrua_agent.accounting import Ledger
from pyrua_agent.episode import EpisodeResult

from .jobs import EpisodeJob
from .provenance import load_average, provenance

_LOG = logging.getLogger(__name__)
TRACEBACK_CHARS = 4000


def infra_record(job: EpisodeJob, detail: str, wall_s: float = 0.0) -> dict[str, Any]:
    """Return the record of an episode that failed outside the episode loop."""
    result = EpisodeResult(task=job.task, seed=job.seed, layout=job.layout,
                           planner=job.interface.planner, end_reason='infra_error',
                           end_detail=detail, success=False, score=None, cells=0,
                           wall_s=wall_s, ledger=Ledger())
    return {**result.to_dict(), **job.describe()}


def episode_spec(job: EpisodeJob, endpoint: Any | None = None) -> Any:
    """
    Return the ``EpisodeSpec`` of ``job`` (the one assembly ``pyrua run`` uses too).

    :param job: the episode.
    :param endpoint: an ``EndpointConfig`` replacing the interface's (the cost model's
        loopback server).
    """
    from pyrua_agent.episode import EpisodeSpec
    from pyrua_agent.planners import needs_endpoint
    from pyrua_primitives.library import LibraryConfig
    from pyrua_primitives.perception.segmenter import SEGMENTERS
    from pyrua_primitives.world import world_of

    interface = job.interface
    options: dict[str, Any] = {}
    if needs_endpoint(interface.planner):
        options['endpoint'] = endpoint or interface.endpoint_config()
        options['prices_file'] = job.prices
        options['prompt'] = interface.prompt_variant()
    elif interface.source is not None:
        options['source'] = interface.source.format(task=job.task, seed=job.seed,
                                                    layout=job.layout)
    from .spec import WORLD_PERCEPTIONS

    world = world_of(job.task)
    needs = WORLD_PERCEPTIONS.get(job.perception)
    if needs is not None and world != needs:
        raise ValueError(f'perception {job.perception!r} is provided by the {needs} world, and '
                         f'task {job.task!r} runs in the {world} world: use one of '
                         f'{sorted(SEGMENTERS)} for it, or name only {needs} tasks')
    # the world's own perception (rgbd) reads depth frames
    library = LibraryConfig(segmenter=job.perception, allow_privileged=job.allow_privileged,
                            use_depth=needs is not None)
    return EpisodeSpec(task=job.task, seed=job.seed, layout=job.layout, world=world,
                       planner=interface.planner, library=library,
                       budgets=job.budgets, cell_timeout_s=job.cell_timeout_s,
                       success_guard=job.success_guard, record=True,
                       runs_dir=str(Path(job.run_root) / job.episode_id), sandbox=job.sandbox,
                       **options)


def program_file(job: EpisodeJob) -> Path | None:
    """Return the file the episode's planner (or the cost model's fixed plan) reads."""
    from pyrua_agent.episode import bundled_program, planner_source

    if job.interface.cost_model:
        return bundled_program(job.task)
    return planner_source(episode_spec(job))


def check_sources(jobs: list[EpisodeJob]) -> None:
    """
    Refuse before any episode runs when a script, replay or reference file is missing.

    A script (or a fixed plan) with no code cell is the spec's error too, refused here rather
    than recorded as an episode's ``infra_error``.

    :raises FileNotFoundError: naming the episode and the file.
    :raises ValueError: naming the episode and the script that holds no code cell.
    """
    from pyrua_agent.planners.percent import read_percent_file

    read: set[Path] = set()
    for job in jobs:
        path = program_file(job)
        if path is not None and not path.is_file():
            raise FileNotFoundError(f'{job.episode_id}: {path} does not exist; fix source '
                                    f'of interface {job.interface.name!r}')
        scripted = job.interface.planner == 'script' or job.interface.cost_model
        if path is not None and scripted and path not in read:
            read.add(path)
            try:
                read_percent_file(path)
            except ValueError as exc:
                raise ValueError(f'{job.episode_id}: {exc} (source of interface '
                                 f'{job.interface.name!r})') from None


def run_job(job: EpisodeJob) -> dict[str, Any]:
    """
    Run one episode and return its record; failures outside the loop are ``infra_error``.

    :param job: the episode.
    :returns: the ``pyrua run --json`` keys plus ``job.describe()``, ``harness_s``
        (seconds spent outside the episode loop: loading, recording, closing) and
        ``provenance`` (commit, model checksum, machine, load at start and end).
    """
    start, load = time.monotonic(), load_average()
    try:
        record = _run(job)
    except Exception as exc:  # noqa: BLE001 -- any crash here is infrastructure, not the model
        text = traceback.format_exc()[-TRACEBACK_CHARS:]
        _LOG.warning('%s: %s: %s', job.episode_id, type(exc).__name__, exc)
        record = infra_record(job, f'{type(exc).__name__}: {exc}\n{text}',
                              time.monotonic() - start)
    record['harness_s'] = round(max(0.0, time.monotonic() - start - record['wall_s']), 3)
    record['provenance'] = provenance(job.interface.model, load)
    return record


def _run(job: EpisodeJob) -> dict[str, Any]:
    from pyrua_agent.episode import run_episode_spec

    if job.interface.cost_model:
        with _reference_server(job) as endpoint:
            result = run_episode_spec(episode_spec(job, endpoint))
    else:
        result = run_episode_spec(episode_spec(job))
    return {**result.to_dict(), **job.describe()}


@contextmanager
def _reference_server(job: EpisodeJob) -> Iterator[Any]:
    """Yield the endpoint of a loopback server replaying the task's reference program."""
    from pyrua_agent.llm import EndpointConfig
    from pyrua_agent.llm.reference_server import LoopbackLLMServer

    from .cost_model import program_cells, reference_turns

    spec = replace(episode_spec(job), planner='script', record=False)

    from pyrua_agent.episode import open_spec_world

    turns, _ = reference_turns(job.interface.planner, program_cells(program_file(job)),
                               lambda: open_spec_world(spec))
    server = LoopbackLLMServer(turns)
    try:
        yield EndpointConfig(**{**job.interface.endpoint, 'base_url': server.base_url,
                                'max_retries': 0})
    finally:
        server.close()

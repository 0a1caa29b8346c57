"""
``run_eval``: a spec's episodes, run on an executor into a result store, resumable.

What ``pyrua eval SPEC --out DIR`` does: expand the spec, skip every episode that already has
a final record in DIR, run the rest (an ``infra_error`` once more), show progress.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager, ExitStack
from dataclasses import dataclass, replace
import os
from pathlib import Path
from typing import Any

from .executors import JobFn, LocalPoolExecutor, RayExecutor
from .jobs import EpisodeJob, expand
from .progress import EvalProgress, RunTally
from .runner import check_sources, run_job
from .spec import EvalSpec
from .store import is_final, ResultStore


@dataclass(frozen=True, slots=True)
class EvalSummary:
    """What one ``run_eval`` call did; ``tally`` covers every final record of the spec."""

    out: Path
    total: int
    skipped: int
    ran: int
    retried: int
    tally: RunTally

    def __repr__(self) -> str:
        return (f'EvalSummary({self.out}: {self.total} episodes, {self.skipped} already done, '
                f'{self.ran} run, {self.retried} retried after infra_error)')


@contextmanager
def local_servers(jobs: Iterable[EpisodeJob], *,
                  progress: bool = False) -> Iterator[list[EpisodeJob]]:
    """
    Serve each local model the jobs name once for all of them; yield the jobs pointed there.

    A job names one with ``model: local...`` and no ``base_url``; the servers stop when the
    block ends. ``progress`` shows each server's live line (prompt read, tokens written).
    """
    from pyrua_agent.llm.local import serving, wants_local_server

    served: dict[str, str] = {}
    out = []
    with ExitStack() as stack:
        for job in jobs:
            interface = job.interface
            if interface.endpoint and not interface.cost_model:
                endpoint = interface.endpoint_config()
                if wants_local_server(endpoint):
                    if endpoint.model not in served:
                        served[endpoint.model] = stack.enter_context(
                            serving(endpoint, progress=progress)).base_url
                    interface = replace(interface, endpoint={
                        **interface.endpoint, 'base_url': served[endpoint.model]})
                    job = replace(job, interface=interface)
            out.append(job)
        yield out


def run_eval(spec: EvalSpec, out: str | os.PathLike[str],
             executor: LocalPoolExecutor | RayExecutor, *, progress: bool = True,
             job_fn: JobFn = run_job) -> EvalSummary:
    """
    Run the spec's episodes that have no final record in ``out``.

    :param spec: the spec.
    :param out: the output folder (records, recordings, the spec).
    :param executor: where the episodes run.
    :param progress: draw the progress bar on stderr.
    :param job_fn: the picklable ``job -> record`` function (``run_job``: one episode).
    :returns: the summary.
    :raises ValueError: for a spec whose settings differ from the folder's records.
    :raises FileNotFoundError: for a missing script or replay file.
    """
    store = ResultStore(out)
    jobs = expand(spec, run_root=str(store.runs_dir.resolve()))
    check_sources(jobs)
    store.bind(spec)
    finished = store.finished(jobs)
    pending = store.pending(jobs)
    bar = EvalProgress(len(jobs), finished, enabled=progress)
    counts = {'ran': 0, 'retried': 0}

    def handle(job: EpisodeJob, record: dict[str, Any]) -> EpisodeJob | None:
        store.write(record)
        counts['ran'] += 1
        if not is_final(record):
            counts['retried'] += 1
            return job.retry()
        bar.add(record)
        return None

    try:
        with local_servers(pending, progress=progress) as served:
            executor.run(served, job_fn, handle)
    finally:
        bar.close()
    return EvalSummary(out=Path(out), total=len(jobs), skipped=len(finished),
                       ran=counts['ran'], retried=counts['retried'], tally=bar.tally)

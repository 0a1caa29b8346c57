"""
Executors: run picklable ``job -> record`` functions on a local process pool or on Ray.

Both take the jobs and a ``handle(job, record) -> EpisodeJob | None`` callback that stores
the record and may return a retry job. A worker that dies (a crash outside any cell, a kill)
turns each episode it may have held into an ``infra_error`` record, never a lost or double
count. ``EXECUTORS`` is the one list of executor names.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
import logging
import multiprocessing
import os
from typing import Any

from pyrua_primitives.errors import MissingDependency
from pyrua_primitives.naming import unknown_name

from .jobs import EpisodeJob
from .runner import infra_record

_LOG = logging.getLogger(__name__)
JobFn = Callable[[EpisodeJob], dict[str, Any]]
Handle = Callable[[EpisodeJob, dict[str, Any]], 'EpisodeJob | None']
EXECUTORS = ('pool', 'ray')


class LocalPoolExecutor:
    """
    A pool of ``workers`` spawned processes, one episode at a time each.

    Only ``workers`` jobs are in flight at once, so a dead worker can only have held those;
    the pool is then rebuilt and the run goes on.

    :param workers: processes (>= 1).
    """

    name = 'pool'

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise ValueError(f'--workers {workers} vs minimum 1; give a positive count')
        self.workers = workers

    def __repr__(self) -> str:
        return f'LocalPoolExecutor(workers={self.workers})'

    def _pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context('spawn'))

    def run(self, jobs: Sequence[EpisodeJob], fn: JobFn, handle: Handle) -> None:
        """Run ``fn`` on every job (and the retries ``handle`` returns)."""
        pending = deque(jobs)
        inflight: dict[Future, EpisodeJob] = {}

        def finish(future: Future, job: EpisodeJob) -> None:
            try:
                record = future.result()
            except BrokenProcessPool as exc:
                record = infra_record(job, f'worker process died outside a cell ({exc})')
            retry = handle(job, record)
            if retry is not None:
                pending.appendleft(retry)

        pool = self._pool()
        try:
            while pending or inflight:
                try:
                    while pending and len(inflight) < self.workers:
                        inflight[pool.submit(fn, pending[0])] = pending[0]
                        pending.popleft()
                    done, _ = wait(inflight, return_when=FIRST_COMPLETED)
                    for future in done:
                        finish(future, inflight.pop(future))
                    broken = any(f.exception() is not None for f in done)
                except BrokenProcessPool:
                    broken = True
                if broken:
                    # A worker died: every episode still in flight fails with the pool.
                    _LOG.warning('a pool worker died; restarting the pool of %d', self.workers)
                    wait(inflight)
                    for future in list(inflight):
                        finish(future, inflight.pop(future))
                    pool.shutdown(wait=True, cancel_futures=True)
                    pool = self._pool()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


class RayExecutor:
    """
    Each episode a Ray task needing one CPU; a local Ray when no address is given.

    The cluster's workers need the same packages installed (``pip install pyrua_lab``) and,
    for recordings, the output folder on a shared file system.

    :param address: a Ray cluster address (``ray://host:10001`` or ``auto``), or None.
    :param workers: CPUs of the local Ray (None: all of this machine's).
    """

    name = 'ray'

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        if workers is not None and workers < 1:
            raise ValueError(f'--workers {workers} vs minimum 1; give a positive count')
        if workers is not None and address is not None:
            raise ValueError('--workers sizes a local Ray; a cluster at --ray-address has its '
                             'own CPUs: drop one of the two')
        self.address = address
        self.workers = workers

    def __repr__(self) -> str:
        return f'RayExecutor(address={self.address or "local"}, workers={self.workers})'

    def run(self, jobs: Sequence[EpisodeJob], fn: JobFn, handle: Handle) -> None:
        """Run ``fn`` on every job (and the retries ``handle`` returns) as Ray tasks."""
        ray = require_ray()
        started = not ray.is_initialized()
        if started:
            options: dict[str, Any] = {'address': self.address, 'include_dashboard': False,
                                       'logging_level': logging.WARNING}
            if self.address is None:
                options['num_cpus'] = self.workers or os.cpu_count()
            ray.init(**options)
        remote = ray.remote(num_cpus=1, max_retries=0)(fn)
        inflight = {remote.remote(job): job for job in jobs}
        try:
            while inflight:
                ready, _ = ray.wait(list(inflight), num_returns=1)
                for ref in ready:
                    job = inflight.pop(ref)
                    try:
                        record = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        record = infra_record(job, f'Ray task failed outside the episode '
                                                   f'({type(exc).__name__}: {exc})')
                    retry = handle(job, record)
                    if retry is not None:
                        inflight[remote.remote(retry)] = retry
        finally:
            for ref in inflight:
                ray.cancel(ref, force=True)
            if started:
                ray.shutdown()


def require_ray() -> Any:
    """
    Import Ray.

    :raises MissingDependency: with the pip command when Ray is not installed.
    """
    try:
        import ray
    except ImportError:
        raise MissingDependency("--executor ray needs Ray: pip install 'pyrua_lab[ray]' "
                                "(or pip install 'ray>=2.9')") from None
    return ray


def make_executor(name: str, *, workers: int | None = None,
                  ray_address: str | None = None) -> LocalPoolExecutor | RayExecutor:
    """
    Build an executor by name (``EXECUTORS``).

    :raises ValueError: for an unknown name, or a Ray address with the pool.
    """
    if name == 'pool':
        if ray_address is not None:
            raise ValueError('--ray-address goes with --executor ray; add it or drop the address')
        return LocalPoolExecutor(1 if workers is None else workers)
    if name == 'ray':
        return RayExecutor(ray_address, workers)
    raise ValueError(unknown_name('executor', name, EXECUTORS))

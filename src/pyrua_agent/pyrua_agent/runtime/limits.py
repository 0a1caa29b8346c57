"""The named limits of a cell worker: its resources, and what a cell may send the host."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True, kw_only=True)
class WorkerLimits:
    """
    Limits of one cell worker; each refusal names the limit and its value.

    :param memory_mb: address space of the worker process (RLIMIT_AS), MiB; None: no limit.
    :param processes: processes the worker may run at once, itself included: ``pids.max``
        of its cgroup where the host can make one (``cgroup.py``; binds for root too, in
        both sandbox modes), and RLIMIT_NPROC in bubblewrap mode (the kernel does not apply
        that one when the host runs as root).
    :param sandbox_memory_mb: memory of the worker and everything it starts together,
        tmpfs files included (its cgroup's memory cap), MiB; None: no cap.
    :param file_size_mb: largest file a cell may write (RLIMIT_FSIZE), MiB.
    :param open_files: open file descriptors (RLIMIT_NOFILE).
    :param scratch_mb: size of the private scratch directory (bubblewrap mode: a tmpfs).
    :param tmp_mb: size of each of ``/tmp`` and ``/dev/shm`` (bubblewrap mode: tmpfs
        mounts; the rest of the sandbox's file system is read-only).
    :param arg_bytes: bytes the arguments of one ``robo`` call may take on the wire.
    :param images_per_cell: ``robo.show`` images one cell may return to the model.
    :param recorded_arg_bytes: an argument larger than this is recorded as a summary.
    """

    memory_mb: int | None = 2048
    processes: int = 64
    sandbox_memory_mb: int | None = 2048
    file_size_mb: int = 256
    open_files: int = 256
    scratch_mb: int = 512
    tmp_mb: int = 64
    arg_bytes: int = 1024 * 1024
    images_per_cell: int = 8
    recorded_arg_bytes: int = 4096

    def __post_init__(self) -> None:
        minimum = {'memory_mb': 256, 'processes': 2, 'sandbox_memory_mb': 256,
                   'file_size_mb': 1, 'open_files': 32, 'scratch_mb': 1, 'tmp_mb': 1,
                   'arg_bytes': 1024, 'images_per_cell': 0, 'recorded_arg_bytes': 64}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name in ('memory_mb', 'sandbox_memory_mb'):
                continue
            if type(value) is not int or value < minimum[f.name]:
                raise ValueError(f'WorkerLimits.{f.name}={value!r} vs minimum '
                                 f'{minimum[f.name]} (an integer); raise it')

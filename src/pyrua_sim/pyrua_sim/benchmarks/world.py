"""
Benchmark tasks as a ``World`` (``pyrua_primitives.world``): registered as ``LIBERO``.

The benchmark's station, its own success check and instruction; with
``spec.library.segmenter == 'oracle'`` (allowed explicitly) the PRIVILEGED ground-truth
``locate`` / ``objects`` by object name, with ``'rgbd'`` the catalogue perception.
"""

from __future__ import annotations

from pyrua_primitives.world import EvaluatorHooks, WorldEntry, WorldParts, WorldSpec


def benchmark_parts(spec: WorldSpec, bench: object) -> WorldParts:
    """
    Describe a loaded benchmark world (``load``) for ``spec`` (reused across init states).

    :raises ValueError: for ``'rgbd'`` perception on a benchmark without it.
    """
    providers, segmenter = {}, None
    if spec.library.segmenter == 'oracle':
        providers = {'locate': bench.oracle.locate, 'objects': bench.oracle.objects}
        segmenter = bench.oracle
    elif spec.library.segmenter == 'rgbd':  # NOT privileged: RGB-D frames + asset catalogue
        if not hasattr(bench, 'rgbd'):
            raise ValueError(f"perception 'rgbd' is not available on {spec.task!r}; it is "
                             'the LIBERO catalogue perception: use rgb or oracle here')
        providers = {'locate': bench.rgbd.locate, 'objects': bench.rgbd.objects}
        segmenter = bench.rgbd
    evaluator = bench.evaluator
    hooks = EvaluatorHooks(success=evaluator.success, score=evaluator.score,
                           after_acting=evaluator.observe)
    return WorldParts(instruction=spec.instruction or bench.instruction, station=bench.station,
                      hooks=hooks, providers=providers, segmenter=segmenter, handle=bench,
                      on_close=bench.close)


def open_benchmark(spec: WorldSpec) -> WorldParts:
    """Load benchmark task ``spec.task`` (``'libero_spatial/3'``) at init state ``spec.layout``."""
    from .registry import load

    bench = load(spec.task, spec.layout)
    try:
        return benchmark_parts(spec, bench)
    except BaseException:
        bench.close()
        raise


def _owns(task: str) -> bool:
    from .registry import is_benchmark_task, split_task

    return is_benchmark_task(task) and split_task(task)[0].name == 'libero'


LIBERO = WorldEntry(name='libero', opener=open_benchmark, owns=_owns,
                    summary='LIBERO / LIBERO-PRO benchmark tasks (<suite>/<index>)')

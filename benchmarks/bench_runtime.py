"""
Benchmark the cell runtime: what a primitive call through the worker adds, and cell start.

Run: ``.venv/bin/python benchmarks/bench_runtime.py`` (about 20 s). For each sandbox mode
(``none``, and ``bwrap`` where bubblewrap works here) prints the median and p99 of: starting a
runtime (worker process up and ready), the round trip of a no-op primitive and of a 640x480
RGB image primitive, called directly and through ``robo`` in the worker, and the host-side
time of an empty cell.
"""

import argparse
import json
import statistics
import time

import numpy as np
from pyrua_agent.runtime import CellRuntime
from pyrua_agent.runtime.sandbox import bwrap_problem

FRAME = np.zeros((480, 640, 3), np.uint8)


def noop() -> None:
    """Do nothing."""


def image(camera: str) -> np.ndarray:
    """Return a fresh 640x480 RGB frame."""
    return FRAME.copy()


def _stats_ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return statistics.median(ordered) * 1e3, p99 * 1e3


def _direct(func, args: tuple, calls: int) -> list[float]:
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        func(*args)
        samples.append(time.perf_counter() - start)
    return samples


def _through_worker(rt: CellRuntime, call: str, calls: int) -> list[float]:
    code = ('import json, time\n_ts = []\n'
            f'for _ in range({calls}):\n    _t = time.perf_counter()\n    {call}\n'
            '    _ts.append(time.perf_counter() - _t)\nprint(json.dumps(_ts))')
    result = rt.run_cell(code)
    if not result.ok:
        raise RuntimeError(f'benchmark cell failed:\n{result.output}')
    return json.loads(result.output)


def _measure(mode: str, calls: int, cells: int, starts: int) -> list:
    rows = []
    started = []
    for _ in range(starts):
        start = time.perf_counter()
        CellRuntime({'noop': noop}, sandbox=mode).close()
        started.append(time.perf_counter() - start)
    rows.append((f'[{mode}] runtime start (worker ready)', _stats_ms(started)))
    with CellRuntime({'noop': noop, 'image': image}, max_output_chars=10_000_000,
                     sandbox=mode) as rt:
        _through_worker(rt, 'robo.noop()', 200)  # warm up
        rows.append((f'[{mode}] no-op primitive, direct', _stats_ms(_direct(noop, (), calls))))
        rows.append((f'[{mode}] no-op primitive, via worker',
                     _stats_ms(_through_worker(rt, 'robo.noop()', calls))))
        rows.append((f'[{mode}] 640x480 RGB image, direct',
                     _stats_ms(_direct(image, ('head',), calls))))
        rows.append((f'[{mode}] 640x480 RGB image, via worker',
                     _stats_ms(_through_worker(rt, "robo.image('head')", calls))))
        samples = []
        for _ in range(cells):
            start = time.perf_counter()
            rt.run_cell('')
            samples.append(time.perf_counter() - start)
        rows.append((f'[{mode}] empty cell (run_cell round trip)', _stats_ms(samples)))
    return rows


def main(argv: list[str] | None = None) -> None:
    """Print the benchmark table."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--calls', type=int, default=2000, help='calls per measurement')
    parser.add_argument('--cells', type=int, default=300, help='empty cells to time')
    parser.add_argument('--starts', type=int, default=10, help='runtime starts to time')
    args = parser.parse_args(argv)
    modes = ['none'] + (['bwrap'] if bwrap_problem() is None else [])
    if len(modes) == 1:
        print(f'bwrap not measured: {bwrap_problem()}')
    print(f'{"measurement":<44} {"median ms":>10} {"p99 ms":>10}')
    for mode in modes:
        rows = _measure(mode, args.calls, args.cells, args.starts)
        for name, (median, p99) in rows:
            print(f'{name:<44} {median:>10.3f} {p99:>10.3f}')
        added = rows[2][1][0] - rows[1][1][0]
        added_image = rows[4][1][0] - rows[3][1][0]
        print(f'[{mode}] added per call (median): no-op {added:.3f} ms, image '
              f'{added_image:.3f} ms (target <= 1 ms)')


if __name__ == '__main__':
    main()

"""
Benchmark the cell runtime: what a primitive call through the worker adds, and cell start.

Run: ``.venv/bin/python benchmarks/bench_runtime.py`` (about 10 s). Prints the median and
p99 round trip of a no-op primitive and of a 640x480 RGB image primitive, called directly
and through ``robo`` in the worker, and the host-side time of an empty cell.
"""

import argparse
import json
import statistics
import time

import numpy as np
from pyrua_agent.runtime import CellRuntime

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


def main(argv: list[str] | None = None) -> None:
    """Print the benchmark table."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--calls', type=int, default=2000, help='calls per measurement')
    parser.add_argument('--cells', type=int, default=300, help='empty cells to time')
    args = parser.parse_args(argv)
    rows = []
    with CellRuntime({'noop': noop, 'image': image}, max_output_chars=10_000_000) as rt:
        _through_worker(rt, 'robo.noop()', 200)  # warm up
        rows.append(('no-op primitive, direct', _stats_ms(_direct(noop, (), args.calls))))
        rows.append(('no-op primitive, via worker',
                     _stats_ms(_through_worker(rt, 'robo.noop()', args.calls))))
        rows.append(('640x480 RGB image, direct',
                     _stats_ms(_direct(image, ('head',), args.calls))))
        rows.append(('640x480 RGB image, via worker',
                     _stats_ms(_through_worker(rt, "robo.image('head')", args.calls))))
        cells = []
        for _ in range(args.cells):
            start = time.perf_counter()
            rt.run_cell('')
            cells.append(time.perf_counter() - start)
        rows.append(('empty cell (run_cell round trip)', _stats_ms(cells)))
    print(f'{"measurement":<36} {"median ms":>10} {"p99 ms":>10}')
    for name, (median, p99) in rows:
        print(f'{name:<36} {median:>10.3f} {p99:>10.3f}')
    added = rows[1][1][0] - rows[0][1][0]
    added_image = rows[3][1][0] - rows[2][1][0]
    print(f'added per call (median): no-op {added:.3f} ms, image {added_image:.3f} ms '
          '(target <= 1 ms)')


if __name__ == '__main__':
    main()

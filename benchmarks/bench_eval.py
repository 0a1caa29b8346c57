"""
Throughput of ``pyrua eval`` with the bundled reference programs: 1 vs N workers, and Ray.

Each configuration runs the same spec (script planner, the tasks' reference programs, every
episode recorded as usual) into a fresh folder and reports episodes per hour, the speed-up
over one pool worker (target >= 1.7x with 2 workers on 2 free cores) and the harness
overhead per episode:

- ``harness``: seconds inside the worker outside the episode loop (loading the twin,
  recording setup and close), from the records' ``harness_s``;
- ``executor``: the rest, per episode: ``elapsed x workers / episodes - (episode + harness)``
  (process start, imports, scheduling, writing records);
- ``busy``: ``episodes x (episode + harness) / (elapsed x workers)``, the share of the
  workers' time spent on episodes, which does not depend on how loaded the machine is.

The load average is printed before and after: on a shared machine the numbers are only
comparable within one run.

Run: ``.venv/bin/python benchmarks/bench_eval.py`` (12 built-in tasks x 1 layout, pool 1 and
2 workers and Ray with 2, about 5 min on 2 free cores); ``--layouts 0-1`` for more episodes,
``--no-ray`` to skip Ray.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import statistics
import tempfile
import time

from pyrua_lab.evaluation import make_executor, parse_spec, read_records, run_eval


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f'load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs'


def measure(spec_data: dict, executor_name: str, workers: int, root: Path) -> dict:
    """Run the spec once on one executor into a fresh folder; return the timings."""
    out = root / f'{executor_name}{workers}'
    executor = make_executor(executor_name, workers=workers)
    start = time.monotonic()
    summary = run_eval(parse_spec(spec_data), out, executor, progress=False)
    elapsed = time.monotonic() - start
    records = read_records(out)
    episode = statistics.fmean(r['wall_s'] for r in records)
    harness = statistics.fmean(r['harness_s'] for r in records)
    solved = sum(r['success'] for r in records)
    return {'name': f'{executor_name} x{workers}', 'workers': workers, 'episodes': summary.ran,
            'solved': solved, 'elapsed_s': elapsed, 'per_hour': 3600 * summary.ran / elapsed,
            'episode_s': episode, 'harness_s': harness,
            'executor_s': elapsed * workers / summary.ran - episode - harness,
            'busy': summary.ran * (episode + harness) / (elapsed * workers)}


def main(argv: list[str] | None = None) -> None:
    """Print episodes per hour, speed-ups and harness overhead per configuration."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--tasks', nargs='+', default=['Generalization', 'Precision',
                                                       'Long-Horizon', 'Memory', 'Open'],
                        help='spec task entries (default: every built-in task)')
    parser.add_argument('--layouts', default='0', help="layout indices, e.g. '0-1'")
    parser.add_argument('--workers', type=int, nargs='+', default=[1, 2],
                        help='pool sizes to compare (default 1 2)')
    parser.add_argument('--no-ray', action='store_true', help='skip the Ray measurement')
    args = parser.parse_args(argv)
    spec = {'name': 'bench', 'tasks': args.tasks, 'layouts': [args.layouts],
            'interfaces': {'script': {'planner': 'script'}}}
    configs = [('pool', n) for n in args.workers]
    if not args.no_ray:
        configs.append(('ray', max(args.workers)))
    print(f'before: {_load()}')
    rows = []
    with tempfile.TemporaryDirectory(prefix='bench_eval_') as root:
        for name, workers in configs:
            rows.append(measure(spec, name, workers, Path(root)))
            print(f'  done {rows[-1]["name"]}: {_load()}', flush=True)
    print(f'after: {_load()}\n')
    base = rows[0]['per_hour']
    print(f'{"executor":<10} {"episodes":>8} {"solved":>6} {"elapsed s":>9} {"ep/hour":>8} '
          f'{"speed-up":>8} {"episode s":>9} {"harness s":>9} {"executor s":>10} {"busy":>5}')
    for row in rows:
        print(f'{row["name"]:<10} {row["episodes"]:>8} {row["solved"]:>6} '
              f'{row["elapsed_s"]:>9.1f} {row["per_hour"]:>8.0f} {row["per_hour"] / base:>7.2f}x '
              f'{row["episode_s"]:>9.2f} {row["harness_s"]:>9.2f} {row["executor_s"]:>10.2f} '
              f'{row["busy"]:>5.0%}')
    print('\nharness s: in the worker, outside the episode loop; executor s: the rest of the '
          "time per episode and worker; busy: share of the workers' time spent in episodes "
          "(the executor's own parallel efficiency: on a saturated machine the speed-up "
          'falls while busy stays high).')


if __name__ == '__main__':
    main()

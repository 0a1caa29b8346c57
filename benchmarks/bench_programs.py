"""
Benchmark the bundled reference programs: success rate and Score per task and dimension.

Run: ``.venv/bin/python benchmarks/bench_programs.py --tasks pick_place --layouts 0-9``
(about 4 s per episode per worker). Each episode runs the task's bundled program
(``pyrua_agent/programs/<task>.py``) through ``open_twin_world`` + ``run_episode`` +
``ScriptPlanner`` without recording, in a process pool. Prints one row per task, one per
dimension and the overall mean, plus each task's failed layouts and why each failed (the
evaluator's unmet conditions); ``--json`` writes the table and every episode's outcome.
"""

import argparse
from collections import defaultdict
from concurrent.futures import as_completed, ProcessPoolExecutor
import json
from pathlib import Path
import statistics
import time

from tqdm import tqdm


def _layouts(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(','):
        low, _, high = part.partition('-')
        out.extend(range(int(low), int(high or low) + 1))
    return out


def run_one(task: str, seed: int, layout: int) -> dict:
    """Run the bundled program of ``task`` on one layout; return its outcome."""
    from pyrua_agent.episode import bundled_program
    from pyrua_agent.episode import run_episode
    from pyrua_agent.planners.script import ScriptPlanner
    from pyrua_agent.episode import open_twin_world

    planner = ScriptPlanner.from_file(bundled_program(task))
    start = time.perf_counter()
    world, twin = open_twin_world(task, seed, layout)
    try:
        result = run_episode(world, planner)
    finally:
        twin.close()
    errors = sum(1 for r in result.cell_results if r.error)
    return {'task': task, 'seed': seed, 'layout': layout, 'success': bool(result.success),
            'score': float(result.score or 0.0), 'end_reason': result.end_reason,
            'cells': result.cells, 'cell_errors': errors, 'unmet': list(result.unmet),
            'wall_s': round(time.perf_counter() - start, 3)}


def _row(name: str, episodes: list[dict]) -> dict:
    return {'name': name, 'episodes': len(episodes),
            'success_rate': statistics.mean(e['success'] for e in episodes),
            'score': statistics.mean(e['score'] for e in episodes),
            'wall_s': statistics.mean(e['wall_s'] for e in episodes)}


def summarize(episodes: list[dict]) -> dict:
    """Return per-task, per-dimension and overall rows (overall = mean over tasks)."""
    from pyrua_sim.tasks import TASKS

    by_task: dict[str, list[dict]] = defaultdict(list)
    for episode in episodes:
        by_task[episode['task']].append(episode)
    tasks = [_row(name, by_task[name]) for name in sorted(by_task)]
    by_dim: dict[str, list[dict]] = defaultdict(list)
    for row in tasks:
        by_dim[TASKS[row['name']].dimension].append(row)
    dims = [{'name': dim, 'tasks': len(rows),
             'success_rate': statistics.mean(r['success_rate'] for r in rows),
             'score': statistics.mean(r['score'] for r in rows),
             'wall_s': statistics.mean(r['wall_s'] for r in rows)}
            for dim, rows in sorted(by_dim.items())]
    overall = {'name': 'all tasks (mean)', 'tasks': len(tasks),
               'success_rate': statistics.mean(r['success_rate'] for r in tasks),
               'score': statistics.mean(r['score'] for r in tasks),
               'wall_s': statistics.mean(r['wall_s'] for r in tasks)}
    failed = {name: sorted(e['layout'] for e in eps if not e['success'])
              for name, eps in sorted(by_task.items())}
    return {'tasks': tasks, 'dimensions': dims, 'overall': overall, 'failed_layouts': failed}


def _print_table(summary: dict) -> None:
    print(f'\n{"task / dimension":<24} {"n":>4} {"success":>8} {"score":>6} {"wall s":>7}')
    for row in summary['tasks']:
        print(f'{row["name"]:<24} {row["episodes"]:>4} {row["success_rate"]:>8.0%} '
              f'{row["score"]:>6.2f} {row["wall_s"]:>7.1f}')
    for row in summary['dimensions'] + [summary['overall']]:
        print(f'{row["name"]:<24} {row["tasks"]:>3}t {row["success_rate"]:>8.0%} '
              f'{row["score"]:>6.2f} {row["wall_s"]:>7.1f}')
    for name, layouts in summary['failed_layouts'].items():
        if layouts:
            print(f'failed {name}: layouts {layouts}')


def main(argv: list[str] | None = None) -> None:
    """Run the episodes and print the table."""
    from pyrua_agent.episode import bundled_program
    from pyrua_sim.tasks import TASKS

    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--tasks', nargs='+', default=None,
                        help='task names (default: every task with a bundled program)')
    parser.add_argument('--layouts', type=_layouts, default=list(range(50)),
                        help='layout indices, e.g. 0-9 or 0-4,25-29 (default 0-49)')
    parser.add_argument('--seed', type=int, default=0, help='layout seed (default 0)')
    parser.add_argument('--workers', type=int, default=2, help='worker processes (default 2)')
    parser.add_argument('--json', type=Path, default=None, help='write the table here')
    args = parser.parse_args(argv)
    tasks = args.tasks
    if tasks is None:
        tasks = []
        for name in sorted(TASKS):
            try:
                bundled_program(name)
            except FileNotFoundError:
                continue
            tasks.append(name)
    for name in tasks:
        bundled_program(name)  # fail early, listing the bundled programs
    jobs = [(task, args.seed, layout) for task in tasks for layout in args.layouts]
    episodes = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = [pool.submit(run_one, *job) for job in jobs]
        for future in tqdm(as_completed(futures), total=len(futures), unit='episode'):
            episodes.append(future.result())
    episodes.sort(key=lambda e: (e['task'], e['layout']))
    summary = summarize(episodes)
    _print_table(summary)
    for e in episodes:  # why each failed episode failed: the evaluator's unmet conditions
        if not e['success']:
            print(f"  {e['task']} layout {e['layout']}: {'; '.join(e['unmet'][:-1]) or '?'}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({'seed': args.seed, 'layouts': args.layouts,
                                         **summary, 'episodes': episodes}, indent=2) + '\n')
        print(f'table: {args.json}')


if __name__ == '__main__':
    main()

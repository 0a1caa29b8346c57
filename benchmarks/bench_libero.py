"""
Benchmark the LIBERO world: suite success rates of the reference programs, and the station.

Needs the LIBERO extra (``.venv-libero``, see README). Two parts:

``--sr``: run each suite's reference program (``pyrua_agent/programs/libero/<suite>.py``)
through the episode assembly (``twin_world`` + ``run_episode`` + the script planner, the
same path as ``pyrua run``) on init states of every task, one environment per task reused
across its init states. Prints SR per suite in the benchmark's usual form (episodes solved /
episodes run, over tasks x init states) and says which perception each number used.

``--locate``: the non-privileged ``rgbd`` locate against ground truth on every declared
object (found / declared, x, y, z error median and 90th percentile).

``--station``: environment build and reset time, render time per camera, and the tracking
error and duration of ``move_to`` moves on the Panda.

Run: ``MUJOCO_GL=egl .venv-libero/bin/python benchmarks/bench_libero.py --station``
and ``... --sr --suites libero_spatial libero_object --states 0-4 --perception oracle``.
"""

import argparse
import contextlib
import io
import json
import math
from pathlib import Path
import statistics
import time


def _states(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(','):
        low, _, high = part.partition('-')
        out.extend(range(int(low), int(high or low) + 1))
    return out


def run_suite(suite: str, states: list[int], perception: str, tasks: list[int] | None) -> list:
    """Run the suite's reference program on ``states`` of each task; return the outcomes."""
    from pyrua_agent.episode import bundled_program, episode_world, EpisodeSpec, run_episode
    from pyrua_agent.planners.script import ScriptPlanner
    from pyrua_primitives.library import LibraryConfig
    from pyrua_sim.benchmarks import load
    from pyrua_sim.benchmarks.world import benchmark_parts
    from pyrua_sim.benchmarks.libero.suites import task_count

    program = bundled_program(f'{suite}/0')
    library = LibraryConfig()
    if perception == 'oracle':
        library = LibraryConfig(segmenter='oracle', allow_privileged=True)
    elif perception == 'rgbd':  # not privileged: RGB-D segments named by the asset catalogue
        library = LibraryConfig(segmenter='rgbd', use_depth=True)
    outcomes = []
    for index in tasks if tasks is not None else range(task_count(suite)):
        try:
            world = load(f'{suite}/{index}', states[0])
        except Exception as exc:  # e.g. a LIBERO-PRO asset the package lacks: say so, go on
            print(f'  not run {suite}/{index}: {type(exc).__name__}: {exc}', flush=True)
            outcomes.append({'suite': suite, 'task': index, 'state': None, 'success': None,
                             'not_run': f'{type(exc).__name__}: {exc}'[:300],
                             'perception': perception})
            continue
        try:
            for state in states:
                start = time.perf_counter()
                world.reset(index=state)
                spec = EpisodeSpec(task=f'{suite}/{index}', layout=state, world='libero',
                                   library=library, record=False)
                episode = episode_world(spec, benchmark_parts(spec, world))
                with contextlib.redirect_stdout(io.StringIO()):
                    result = run_episode(episode, ScriptPlanner.from_file(program))
                outcomes.append({'suite': suite, 'task': index, 'state': state,
                                 'instruction': world.instruction,
                                 'success': bool(result.success),
                                 'end_reason': result.end_reason, 'perception': perception,
                                 'wall_s': round(time.perf_counter() - start, 2)})
                mark = 'ok ' if result.success else 'FAIL'
                print(f'  {mark} {suite}/{index} state {state}: {world.instruction} '
                      f'({outcomes[-1]["wall_s"]:.1f} s)', flush=True)
        finally:
            world.close()
    return outcomes


def locate_errors(suites: list[str], states: list[int], tasks: list[int] | None) -> dict:
    """
    Measure the rgbd locate against ground truth (the oracle) on every declared object.

    Returns per suite: how many declared objects were found, and the x, y, z errors of the
    found ones (median and 90th percentile, mm); an object the camera cannot see (inside a
    drawer, behind the basket) counts as not found.
    """
    import numpy as np
    from pyrua_sim.benchmarks import load
    from pyrua_sim.benchmarks.libero.suites import task_count

    out = {}
    for suite in suites:
        errors, declared, found, rows = [], 0, 0, []
        for index in tasks if tasks is not None else range(task_count(suite)):
            world = load(f'{suite}/{index}', states[0])
            try:
                for state in states:
                    world.reset(index=state)
                    scene = world.rgbd.scene()
                    for name, category in world.rgbd._instances:
                        declared += 1
                        if name not in scene:
                            rows.append({'task': index, 'state': state, 'name': name,
                                         'category': category, 'error_mm': None})
                            continue
                        found += 1
                        est = world.rgbd.locate(name)
                        truth = world.oracle.locate(name)
                        errors.append(np.abs(np.subtract(est.position_m, truth.position_m)))
                        rows.append({'task': index, 'state': state, 'name': name,
                                     'category': category,
                                     'long_side_m': round(max(truth.size_m), 3),
                                     'error_mm': (errors[-1] * 1000).round(1).tolist()})
            finally:
                world.close()
        errs = np.array(errors).reshape(-1, 3) * 1000
        row = {'declared': declared, 'found': found}
        if len(errs):
            row.update({'median_mm': np.median(errs, axis=0).round(1).tolist(),
                        'p90_mm': np.percentile(errs, 90, axis=0).round(1).tolist(),
                        'within_20mm': float(np.mean(errs.max(axis=1) <= 20))})
        print(f'  {suite}: {json.dumps(row)}', flush=True)
        out[suite] = {**row, 'objects': rows}
    return out


def station_numbers(moves: int = 6) -> dict:
    """Measure build, reset, render and move tracking on libero_spatial/0."""
    from pyrua_primitives.library import PrimitiveLibrary
    from pyrua_sim.benchmarks import load

    start = time.perf_counter()
    world = load('libero_spatial/0', 0)
    first = time.perf_counter() - start
    try:
        resets = []
        for state in (1, 2, 3):
            t = time.perf_counter()
            world.reset(index=state)
            resets.append(time.perf_counter() - t)
        render = {}
        for camera in world.station.cameras:
            world.station.capture(camera)  # first frame makes the GL context
            for depth in (False, True):
                times = []
                for _ in range(5):
                    t = time.perf_counter()
                    world.station.capture(camera, depth=depth)
                    times.append(time.perf_counter() - t)
                render[f'{camera}{"+depth" if depth else ""}'] = statistics.median(times)
        robo = PrimitiveLibrary(world.station)
        x, y, z = robo.pose('arm').position_m
        errors, durations, walls = [], [], []
        for k in range(moves):
            angle = 2 * math.pi * k / moves
            target = [x + 0.15 + 0.08 * math.cos(angle), y + 0.1 * math.sin(angle),
                      z - 0.12 + 0.04 * (k % 2)]
            t = time.perf_counter()
            result = robo.move_to('arm', target, heading=0.5 * math.sin(angle))
            walls.append(time.perf_counter() - t)
            errors.append(result.error_m)
            durations.append(result.duration_s)
        return {'first_build_and_reset_s': first, 'env_build_s': world.build_s,
                'reset_s_median': statistics.median(resets), 'render_s': render,
                'move_error_mm_median': 1000 * statistics.median(errors),
                'move_error_mm_max': 1000 * max(errors),
                'move_sim_s_median': statistics.median(durations),
                'move_wall_s_median': statistics.median(walls)}
    finally:
        world.close()


def main() -> None:
    """Parse the arguments, run the chosen parts, print (and optionally save) the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--station', action='store_true', help='build/reset/render/tracking')
    parser.add_argument('--sr', action='store_true', help='suite success rates')
    parser.add_argument('--locate', action='store_true',
                        help='rgbd locate error against ground truth, per suite')
    parser.add_argument('--suites', nargs='+', default=['libero_spatial'])
    parser.add_argument('--tasks', default=None, help='task indices, e.g. 0-9 (default all)')
    parser.add_argument('--states', default='0-4', help='init states, e.g. 0-49')
    parser.add_argument('--perception', default='oracle', choices=('oracle', 'rgb', 'rgbd'))
    parser.add_argument('--json', type=Path, default=None)
    args = parser.parse_args()
    report: dict = {}
    if args.station:
        numbers = station_numbers()
        report['station'] = numbers
        print(json.dumps(numbers, indent=2))
    if args.locate:
        report['locate'] = locate_errors(args.suites, _states(args.states),
                                         _states(args.tasks) if args.tasks else None)
    if args.sr:
        tasks = _states(args.tasks) if args.tasks else None
        rows = []
        for suite in args.suites:
            try:
                outcomes = run_suite(suite, _states(args.states), args.perception, tasks)
            except FileNotFoundError as exc:  # e.g. a LIBERO-PRO suite without init states
                print(f'  {suite}: not run: {exc}', flush=True)
                continue
            ran = [o for o in outcomes if o['success'] is not None]
            solved = sum(o['success'] for o in ran)
            rows.append({'suite': suite, 'episodes': len(ran), 'solved': solved,
                         'sr': solved / len(ran) if ran else None,
                         'not_run': len(outcomes) - len(ran), 'perception': args.perception,
                         'episode_wall_s_median': statistics.median(
                             o['wall_s'] for o in ran) if ran else None,
                         'outcomes': outcomes})
            if args.json is not None:  # after every suite: a long run keeps what it did
                args.json.write_text(json.dumps({**report, 'suites': rows}, indent=2) + '\n')
        print(f'\n{"suite":24s} {"SR":>6s} {"solved":>10s}  perception  episode wall')
        for row in rows:
            sr = 'n/a' if row['sr'] is None else f'{row["sr"] * 100:5.1f}%'
            wall = row['episode_wall_s_median']
            wall = 'n/a' if wall is None else f'{wall:.1f} s'
            skipped = f'  ({row["not_run"]} tasks not run)' if row['not_run'] else ''
            print(f'{row["suite"]:24s} {sr:>6s} {row["solved"]:4d}/'
                  f'{row["episodes"]:<5d}  {row["perception"]:10s}  {wall}{skipped}')
        report['suites'] = rows
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + '\n')


if __name__ == '__main__':
    main()

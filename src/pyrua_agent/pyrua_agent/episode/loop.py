"""
The episode loop: one planner, one cell runtime, budgets, and exactly one end reason.

``run_episode`` drives any planner through the same runtime and guards, so the code agent,
the tool-calling baseline, the script and replay planners all produce the same
``EpisodeResult``. The world side (a twin or a real station) comes in as an ``EpisodeWorld``:
the primitives, which of them act, and (evaluator side, optional) the success check and score.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
import logging
import threading
from typing import Any

from ..accounting import Ledger
from ..budgets import BudgetConfig, Budgets, EpisodeEnd
from ..llm.errors import ContextOverflow, LLMError
from ..planners.base import Cell, Planner, TaskCard
from ..runtime import CellResult, CellRuntime
from ..runtime.robo import INSTRUCTION_DOC, RoboValue
from ..runtime.transport import Transport

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class EpisodeWorld:
    """
    What the loop needs from the world an episode runs in.

    :param task: task name (for the record).
    :param seed: layout seed.
    :param layout: layout index.
    :param card: the task card shown to the planner.
    :param primitives: ``robo.<name>`` callables, run on the host.
    :param acting: names of primitives that act on the robot.
    :param success: the evaluator's success check (None on a real station without one).
    :param score: the evaluator's staged process reward in [0, 1] (None when unknown).
    :param success_guard: stop a cell before an acting primitive once the task succeeded.
    :param transport: how the runtime reaches the primitives (None: in this process); a
        recorded episode gets a ``RecordedTransport``, the agent node its ROS actions.
    :param after_cell: world state to advance with each finished cell, called with its
        result before the loop's ``on_cell`` (a replay's bag moves to the next recorded cell).
    :param unmet: the evaluator's reasons the task is not solved (one line per condition,
        then what the score counts); None when unknown.
    """

    task: str
    seed: int
    layout: int
    card: TaskCard
    primitives: Mapping[str, Callable[..., Any]]
    acting: Collection[str]
    success: Callable[[], bool] | None = None
    score: Callable[[], float] | None = None
    success_guard: bool = True
    transport: Transport | None = None
    after_cell: Callable[[CellResult], None] | None = None
    unmet: Callable[[], tuple[str, ...]] | None = None


@dataclass(frozen=True, slots=True)
class EpisodeResult:
    """
    The record of one episode; ``to_dict()`` keys are a public contract of ``--json``.

    ``end_reason`` is one of ``pyrua_agent.budgets.END_REASONS``; ``end_detail`` says why
    (a planner's last message); ``unmet`` is, for a failed episode, each success condition
    the final state misses and what ``score`` counted (empty when solved or unknown);
    ``run_dir`` is the episode's recording folder (None when not recorded).
    """

    task: str
    seed: int
    layout: int
    planner: str
    end_reason: str
    end_detail: str
    success: bool
    score: float | None
    cells: int
    wall_s: float
    ledger: Ledger
    cell_results: tuple[CellResult, ...] = field(default=())
    run_dir: str | None = None
    sandbox: str = 'none'
    unmet: tuple[str, ...] = ()

    def __repr__(self) -> str:
        score = 'n/a' if self.score is None else f'{self.score:.2f}'
        unmet = f', unmet: {"; ".join(self.unmet[:-1])}' if self.unmet[:-1] else ''
        return (f'EpisodeResult({self.task} seed={self.seed} layout={self.layout}, '
                f'{self.planner}: {self.end_reason}, success={self.success}, score={score}, '
                f'{self.cells} cells, {self.ledger.totals().llm_calls} calls, '
                f'{self.wall_s:.1f} s{unmet})')

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready record (totals, per-call log, per-cell summary)."""
        accounting = self.ledger.to_dict()
        return {
            'task': self.task,
            'seed': self.seed,
            'layout': self.layout,
            'planner': self.planner,
            'end_reason': self.end_reason,
            'end_detail': self.end_detail,
            'success': self.success,
            'score': self.score,
            'unmet': list(self.unmet),
            'cells': self.cells,
            'wall_s': round(self.wall_s, 3),
            'run_dir': self.run_dir,
            'sandbox': self.sandbox,
            **accounting,
            'cell_log': [
                {'index': r.index, 'error': r.error, 'stopped_reason': r.stopped_reason,
                 'duration_s': round(r.duration_s, 3), 'images': len(r.images),
                 'calls': [c.name for c in r.calls]}
                for r in self.cell_results
            ],
        }


def _success(world: EpisodeWorld) -> bool:
    return bool(world.success()) if world.success is not None else False


class _Watchdog:
    """Cancels the active primitive when the episode wall clock runs out."""

    def __init__(self, runtime: CellRuntime, budgets: Budgets) -> None:
        self._runtime = runtime
        self._budgets = budgets
        self._done = threading.Event()
        self.fired = False
        self._thread = threading.Thread(target=self._run, name='episode-watchdog', daemon=True)

    def __enter__(self) -> _Watchdog:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._done.set()
        self._thread.join()

    def _run(self) -> None:
        if not self._done.wait(self._budgets.remaining_s):
            self.fired = True
            _LOG.warning('episode wall clock %.0f s ran out; cancelling the active cell',
                         self._budgets.config.wall_clock_s)
            self._runtime.cancel()


def run_episode(world: EpisodeWorld, planner: Planner, *,
                budgets: BudgetConfig | None = None,
                cell_timeout_s: float | None = None, max_output_chars: int = 8000,
                on_cell: Callable[[Cell, CellResult], None] | None = None,
                runtime_factory: Callable[..., CellRuntime] = CellRuntime,
                sandbox: str = 'auto') -> EpisodeResult:
    """
    Run one episode to its single end reason.

    :param world: primitives, guards and evaluator hooks of the episode.
    :param planner: produces cells (and makes the LLM calls, if any).
    :param budgets: LLM calls, cells, wall clock and context limits.
    :param cell_timeout_s: optional per-cell limit, seconds.
    :param max_output_chars: per-cell output kept for the model.
    :param on_cell: called after each cell with the cell and its result (progress display,
        recording).
    :param runtime_factory: builds the cell runtime from the world's primitives.
    :param sandbox: cell isolation, one of ``pyrua_agent.runtime.sandbox.SANDBOX_MODES``;
        the mode in effect ('bwrap' or 'none') is recorded as ``EpisodeResult.sandbox``.
    :returns: the episode record.
    """
    config = budgets or BudgetConfig()
    meter = Budgets(config)
    guard = world.success if (world.success_guard and world.success is not None) else None
    results: list[CellResult] = []
    reason, detail = 'gave_up', ''
    options = {} if world.transport is None else {'transport': world.transport}
    # robo.instruction: the card's instruction, a value the worker holds (never a call).
    primitives = {'instruction': RoboValue(world.card.instruction, INSTRUCTION_DOC),
                  **world.primitives}
    runtime = runtime_factory(primitives, acting=world.acting, success_check=guard,
                              cell_timeout_s=cell_timeout_s, max_output_chars=max_output_chars,
                              sandbox=sandbox, **options)
    sandbox_used = runtime.sandbox
    try:
        with _Watchdog(runtime, meter) as watchdog:
            try:
                planner.begin(world.card, meter)
                while True:
                    if _success(world):
                        raise EpisodeEnd('solved', f'task succeeded after {len(results)} cells')
                    step = planner.next_step()
                    if not isinstance(step, Cell):
                        done = _success(world)
                        raise EpisodeEnd('solved' if done else 'gave_up', step.message)
                    meter.charge_cell()
                    result = runtime.run_cell(step.code)
                    results.append(result)
                    if world.after_cell is not None:
                        world.after_cell(result)
                    if on_cell is not None:
                        on_cell(step, result)
                    if watchdog.fired:
                        meter.check_wall_clock()
                    planner.observe(result)
            except EpisodeEnd as end:
                reason, detail = end.reason, end.detail
            except ContextOverflow as exc:
                reason, detail = 'context_overflow', str(exc)
            except LLMError as exc:
                reason, detail = 'infra_error', str(exc)
    finally:
        runtime.close()
        planner.close()
    success = _success(world)
    if success and reason != 'solved':
        _LOG.info('episode ended with %s but the task is complete: reporting solved', reason)
        reason, detail = 'solved', f'task complete ({reason}: {detail})'
    score = world.score() if world.score is not None else None
    if success and score is not None:
        score = 1.0
    unmet = () if success or world.unmet is None else tuple(world.unmet())
    return EpisodeResult(task=world.task, seed=world.seed, layout=world.layout,
                         planner=planner.name, end_reason=reason, end_detail=detail,
                         success=success, score=score, cells=len(results),
                         wall_s=meter.elapsed_s, ledger=planner.ledger,
                         cell_results=tuple(results), sandbox=sandbox_used, unmet=unmet)

"""
Episode budgets and the single end reason every episode finishes with.

The episode loop owns the budgets: LLM calls, code cells, wall clock and context tokens.
Planners ask ``Budgets.charge_call()`` before each LLM call; the loop checks cells and the
wall clock between cells. Whatever stops an episode raises ``EpisodeEnd`` with one of
``END_REASONS``.
"""

from __future__ import annotations

from dataclasses import dataclass
import time

from .errors import AgentError

END_REASONS = ('solved', 'gave_up', 'call_budget', 'cell_budget', 'wall_clock',
               'context_overflow', 'infra_error')


@dataclass(frozen=True, kw_only=True)
class BudgetConfig:
    """
    Limits of one episode; the defaults follow the reference protocol.

    :param max_llm_calls: model calls (retries and infrastructure errors do not count).
    :param max_cells: code cells (or tool calls) executed.
    :param wall_clock_s: episode wall clock, seconds; the watchdog cancels the active
        primitive when it runs out.
    :param max_context_tokens: input tokens of one call; a call past it ends the episode
        with ``context_overflow``.
    """

    max_llm_calls: int = 40
    max_cells: int = 80
    wall_clock_s: float = 7200.0
    max_context_tokens: int = 200_000

    def __post_init__(self) -> None:
        for name in ('max_llm_calls', 'max_cells', 'max_context_tokens'):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f'budgets.{name} {value!r} vs minimum 1; give a positive integer')
        if not self.wall_clock_s > 0:
            raise ValueError(f'budgets.wall_clock_s {self.wall_clock_s!r} vs minimum > 0 s')


class EpisodeEnd(AgentError):
    """
    Ends the episode with ``reason`` (one of ``END_REASONS``) and a line for people.

    :param reason: the end reason.
    :param detail: what happened, e.g. ``'40 LLM calls used vs budget 40'``.
    """

    def __init__(self, reason: str, detail: str = '') -> None:
        if reason not in END_REASONS:
            raise ValueError(f'end reason {reason!r} is not one of {END_REASONS}')
        super().__init__(f'{reason}: {detail}' if detail else reason)
        self.reason = reason
        self.detail = detail


class Budgets:
    """Counts what an episode spends against its ``BudgetConfig``."""

    def __init__(self, config: BudgetConfig, clock=time.monotonic) -> None:
        self.config = config
        self._clock = clock
        self.started = clock()
        self.llm_calls = 0
        self.cells = 0

    def __repr__(self) -> str:
        return (f'Budgets(calls {self.llm_calls}/{self.config.max_llm_calls}, '
                f'cells {self.cells}/{self.config.max_cells}, '
                f'{self.elapsed_s:.0f}/{self.config.wall_clock_s:.0f} s)')

    @property
    def elapsed_s(self) -> float:
        """Return seconds since the episode started."""
        return self._clock() - self.started

    @property
    def remaining_s(self) -> float:
        """Return wall-clock seconds left (never negative)."""
        return max(0.0, self.config.wall_clock_s - self.elapsed_s)

    def check_wall_clock(self) -> None:
        """
        Stop the episode when it is out of time.

        :raises EpisodeEnd: ``wall_clock`` when the wall clock budget is spent.
        """
        if self.elapsed_s >= self.config.wall_clock_s:
            raise EpisodeEnd('wall_clock', f'{self.elapsed_s:.1f} s used vs budget '
                             f'{self.config.wall_clock_s:.1f} s')

    def charge_call(self) -> None:
        """
        Count one LLM call about to be made.

        :raises EpisodeEnd: ``call_budget`` when the budget is already spent, ``wall_clock``
            when time is up.
        """
        self.check_wall_clock()
        if self.llm_calls >= self.config.max_llm_calls:
            raise EpisodeEnd('call_budget', f'{self.llm_calls} LLM calls used vs budget '
                             f'{self.config.max_llm_calls}')
        self.llm_calls += 1

    def charge_cell(self) -> None:
        """
        Count one cell about to run.

        :raises EpisodeEnd: ``cell_budget`` when the budget is spent, ``wall_clock`` when
            time is up.
        """
        self.check_wall_clock()
        if self.cells >= self.config.max_cells:
            raise EpisodeEnd('cell_budget', f'{self.cells} cells run vs budget '
                             f'{self.config.max_cells}')
        self.cells += 1

    def check_context(self, input_tokens: int) -> None:
        """
        Stop the episode when one call's input is past the context limit.

        :raises EpisodeEnd: ``context_overflow`` when ``input_tokens`` exceeds the limit.
        """
        if input_tokens > self.config.max_context_tokens:
            raise EpisodeEnd('context_overflow', f'{input_tokens} input tokens vs limit '
                             f'{self.config.max_context_tokens}')

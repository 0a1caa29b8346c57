"""The script planner: runs the cells of a percent file (``# %%``) in order, no LLM."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .base import Cell, Finish, TaskCard
from .percent import read_percent_file, ScriptCell
from ..accounting import Ledger
from ..budgets import Budgets
from ..runtime import CellResult


class ScriptPlanner:
    """
    Run a fixed list of cells, one per step, then finish.

    It makes no LLM calls, so its ledger stays empty; it keeps going after a failed cell,
    as a careful program checks results itself. What a model reads on its task card, a
    script gets as a first cell that defines ``instruction`` (the task's text).

    :param cells: the cells to run.
    :param source: where they came from (for reprs and transcripts).
    """

    name = 'script'

    def __init__(self, cells: Sequence[ScriptCell], source: str = '<cells>') -> None:
        if not cells:
            raise ValueError(f'script {source!r} has no cells; give at least one')
        self.cells = tuple(cells)
        self.source = source
        self.ledger = Ledger()
        self._next = 0
        self._card_cell: Cell | None = None

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptPlanner:
        """Build a script planner from a percent file."""
        return cls(read_percent_file(path), source=str(path))

    def __repr__(self) -> str:
        return f'ScriptPlanner({self.source!r}, cell {self._next}/{len(self.cells)})'

    def begin(self, card: TaskCard, budgets: Budgets) -> None:
        """Start from the first cell, after one that defines ``instruction``."""
        self._next = 0
        self._card_cell = Cell(code=f'instruction = {card.instruction!r}', label='task card')

    def next_step(self) -> Cell | Finish:
        """Return the next script cell, or ``Finish`` after the last one."""
        if self._card_cell is not None:
            cell, self._card_cell = self._card_cell, None
            return cell
        if self._next >= len(self.cells):
            return Finish(f'script {self.source} finished after {len(self.cells)} cells')
        cell = self.cells[self._next]
        self._next += 1
        return Cell(code=cell.code, label=cell.title or f'cell at line {cell.line}')

    def observe(self, result: CellResult) -> None:
        """Nothing to learn: the script is fixed."""

    def close(self) -> None:
        """Nothing to release."""

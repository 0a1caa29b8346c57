"""The script planner: runs the cells of a percent file (``# %%``) in order, no LLM."""

from __future__ import annotations

import ast
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
    script that reads the name ``instruction`` gets from a first cell, labelled 'task card',
    that defines it (the task's text); other scripts run exactly their own cells.

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
        if _reads_instruction(self.cells):
            self._card_cell = Cell(code=f'instruction = {card.instruction!r}',
                                   label='task card')

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


def _reads_instruction(cells: Sequence[ScriptCell]) -> bool:
    """Return True when some cell loads the name ``instruction``."""
    for cell in cells:
        try:
            tree = ast.parse(cell.code)
        except SyntaxError:
            continue  # the runtime reports it when the cell runs
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id == 'instruction' \
                    and isinstance(node.ctx, ast.Load):
                return True
    return False

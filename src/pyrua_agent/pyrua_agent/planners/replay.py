"""
The replay planner: runs again the cells, or tool calls, of a recorded episode, no LLM.

It reads a JSONL transcript, one JSON object per line, and keeps the records that ran code,
in order:

- ``{"kind": "cell", "code": "...", "label": "..."}``: a code cell (``label`` optional);
- ``{"kind": "tool_call", "name": "move_to", "arguments": {...}}``: a tool call of the
  tool-calling baseline, replayed as its one-call cell (without the pictures, which only a
  model would read); a ``python`` tool call replays its ``code``.

Records of any other kind (model calls, results, notes) are skipped. ``from_file`` also takes
a ``# %%`` file (run exactly, with no added ``instruction`` cell) or a run folder, whose bag's
cells it replays (``pyrua replay``). Like every planner it runs through the episode loop:
one cell per step, then ``Finish``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import json
from pathlib import Path
from typing import Any

from .base import Cell, Finish, TaskCard
from .percent import read_percent_file, ScriptCell
from .tool_calling import call_code
from ..accounting import Ledger
from ..budgets import Budgets
from ..llm import PYTHON_TOOL_NAME
from ..runtime import CellResult

REPLAYED_KINDS = ('cell', 'tool_call')


def record_code(record: Mapping[str, Any], where: str) -> str | None:
    """
    Return the code a transcript record ran, or ``None`` for a record that ran none.

    :param record: one decoded transcript line.
    :param where: ``'file:line'`` for error messages.
    :raises ValueError: for a cell or tool call record without its fields.
    """
    kind = record.get('kind')
    if kind == 'cell':
        code = record.get('code')
        if not isinstance(code, str):
            raise ValueError(f'{where}: cell record has code {code!r} vs a string; write '
                             '{"kind": "cell", "code": "..."}')
        return code
    if kind == 'tool_call':
        name, arguments = record.get('name'), record.get('arguments', {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise ValueError(f'{where}: tool_call record has name {name!r}, arguments '
                             f'{arguments!r} vs a string and an object; write '
                             '{"kind": "tool_call", "name": "...", "arguments": {...}}')
        if name == PYTHON_TOOL_NAME:
            return record_code({'kind': 'cell', 'code': arguments.get('code')}, where)
        return call_code(name, arguments)
    return None


def read_transcript(path: str | Path) -> list[ScriptCell]:
    """
    Read the replayable cells of a JSONL transcript.

    :param path: the transcript file.
    :returns: one cell per replayable record, titled with its label and line number.
    :raises FileNotFoundError: when the file does not exist.
    :raises ValueError: for a line that is not a JSON object, or a file with no cell.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f'transcript {str(path)!r} does not exist; pass a .jsonl '
                                'file written by a recorded episode')
    cells = []
    for number, line in enumerate(path.read_text(encoding='utf-8').splitlines(), start=1):
        if not line.strip():
            continue
        where = f'{path}:{number}'
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f'{where} is not JSON ({exc.msg}); each line must be one JSON '
                             'object') from exc
        if not isinstance(record, dict):
            raise ValueError(f'{where} is a JSON {type(record).__name__} vs an object')
        code = record_code(record, where)
        if code is not None:
            title = str(record.get('label') or record.get('name') or record['kind'])
            cells.append(ScriptCell(title=title, code=code, line=number))
    if not cells:
        raise ValueError(f'transcript {str(path)!r} has no records of kind {REPLAYED_KINDS}; '
                         'nothing to replay')
    return cells


def recorded_cells(recording: Any) -> list[ScriptCell]:
    """Return a recording's cells (``BagRecording``) titled with their labels and index."""
    return [ScriptCell(title=recorded_title(cell), code=cell['code'], line=cell['cell'])
            for cell in recording.cells]


def recorded_title(cell: Mapping[str, Any]) -> str:
    """Return a recorded cell's title: its label and index (``'plan (recorded cell 2)'``)."""
    label = cell.get('label') or ''
    return f'{label} (recorded cell {cell["cell"]})' if label else f'recorded cell {cell["cell"]}'


class ReplayPlanner:
    """
    Replay recorded cells one per step, exactly as recorded, then finish; no LLM calls.

    Unlike the script planner it adds no ``instruction`` cell: a recorded episode already
    holds every cell it ran.

    :param cells: the cells to replay.
    :param source: where they came from.
    """

    name = 'replay'

    def __init__(self, cells: Sequence[ScriptCell], source: str = '<cells>') -> None:
        if not cells:
            raise ValueError(f'replay {source!r} has no cells; give at least one')
        self.cells = tuple(cells)
        self.source = source
        self.ledger = Ledger()
        self._next = 0

    @classmethod
    def from_codes(cls, codes: Sequence[str], source: str = '<codes>') -> ReplayPlanner:
        """Build a replay planner from a list of code strings."""
        return cls([ScriptCell(title=f'cell {i}', code=code, line=i)
                    for i, code in enumerate(codes, start=1)], source=source)

    @classmethod
    def from_file(cls, path: str | Path) -> ReplayPlanner:
        """
        Build a replay planner from a file of cells, run exactly as they are.

        :param path: a JSONL transcript; a ``# %%`` file (``.py``, e.g. an edited
            ``pyrua replay --export`` copy); or a run folder (or its bag), whose recorded
            cells are replayed.
        """
        path = Path(path)
        if path.is_dir():
            from ..recording.bag_reader import read_bag

            return cls(recorded_cells(read_bag(path)), source=str(path))
        if path.suffix == '.py':
            return cls(read_percent_file(path), source=str(path))
        return cls(read_transcript(path), source=str(path))

    def __repr__(self) -> str:
        return f'ReplayPlanner({self.source!r}, cell {self._next}/{len(self.cells)})'

    def begin(self, card: TaskCard, budgets: Budgets) -> None:
        """Start from the first recorded cell."""
        self._next = 0

    def next_step(self) -> Cell | Finish:
        """Return the next recorded cell, or ``Finish`` after the last one."""
        if self._next >= len(self.cells):
            return Finish(f'replay of {self.source} finished after {len(self.cells)} cells')
        cell = self.cells[self._next]
        self._next += 1
        return Cell(code=cell.code, label=cell.title)

    def observe(self, result: CellResult) -> None:
        """Nothing to learn: the recording is fixed."""

    def close(self) -> None:
        """Nothing to release."""

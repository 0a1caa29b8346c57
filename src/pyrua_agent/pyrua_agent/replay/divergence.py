"""
The divergence report of a replay: per cell, whether the output equals the recorded one.

A cell is ``same`` when its code and output equal the recording's exactly, ``changed``
when its output differs (the first differing line is kept), ``extra`` when the recording
has no cell of that index, and ``missing`` when a recorded cell was not replayed. Primitive
calls that did not match the recording (``CallDivergence``), results whose
rebuilt repr differs, and a different end reason are listed too: nothing is hidden.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import AgentError
from ..runtime import CellResult

STATUSES = ('same', 'changed', 'extra', 'missing')


class ReplayDivergence(AgentError):
    """A replayed cell called a primitive the recording has no result for."""


@dataclass(frozen=True, slots=True)
class CallDivergence:
    """
    One replayed primitive call that did not match the recording.

    ``call`` is the 1-based position among the cell's primitive calls; ``recorded`` is
    the recorded call at that position ('' when the recorded cell made fewer calls);
    ``action`` says what the replay did instead.
    """

    cell: int
    call: int
    called: str
    recorded: str
    action: str

    def __repr__(self) -> str:
        recorded = self.recorded or 'no call'
        return (f'CallDivergence(cell {self.cell} call {self.call}: {self.called[:40]} vs '
                f'{recorded[:40]}; {self.action[:30]})')


@dataclass(frozen=True, slots=True)
class CellComparison:
    """
    One cell of the replay against the recording.

    ``line`` is the 1-based first differing output line (0 when the outputs are equal);
    ``replayed_line`` and ``recorded_line`` are that line on each side ('' past the end).
    """

    index: int
    status: str
    code_changed: bool = False
    line: int = 0
    replayed_line: str = ''
    recorded_line: str = ''

    def __repr__(self) -> str:
        code = ', code changed' if self.code_changed else ''
        where = f', first difference at line {self.line}' if self.line else ''
        return f'CellComparison(cell {self.index}, {self.status}{code}{where})'


def first_difference(replayed: str, recorded: str) -> tuple[int, str, str]:
    """
    Return the first line where two outputs differ: (1-based number, replayed, recorded).

    :returns: ``(0, '', '')`` when the texts are equal.
    """
    if replayed == recorded:
        return 0, '', ''
    ours, theirs = replayed.split('\n'), recorded.split('\n')
    number = 0
    while number < min(len(ours), len(theirs)) and ours[number] == theirs[number]:
        number += 1
    mine = ours[number] if number < len(ours) else ''
    other = theirs[number] if number < len(theirs) else ''
    return number + 1, mine, other


def compare_cell(index: int, code: str, result: CellResult,
                 recorded: Mapping[str, Any] | None) -> CellComparison:
    """Compare one replayed cell with its recorded cell (None when there is none)."""
    if recorded is None:
        return CellComparison(index=index, status='extra')
    line, mine, theirs = first_difference(result.output, recorded.get('output', ''))
    return CellComparison(index=index, status='changed' if line else 'same',
                          code_changed=code.strip() != str(recorded.get('code', '')).strip(),
                          line=line,
                          replayed_line=mine, recorded_line=theirs)


@dataclass(frozen=True, slots=True)
class DivergenceReport:
    """
    Everything in which a replay differed from its recording.

    ``identical`` is True when every recorded cell was replayed with the same output, no
    extra cell ran, no call diverged, every result was rebuilt exactly, and the episode
    ended with the recorded end reason.
    """

    cells: tuple[CellComparison, ...]
    calls: tuple[CallDivergence, ...] = ()
    rebuild_notes: tuple[str, ...] = ()
    end_reason: str = ''
    recorded_end_reason: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def identical(self) -> bool:
        """Return True when nothing diverged."""
        return (all(c.status == 'same' for c in self.cells) and not self.calls
                and not self.rebuild_notes and self.end_reason == self.recorded_end_reason)

    @property
    def first_divergent_cell(self) -> int | None:
        """Return the index of the first cell that is not ``same`` (None when none)."""
        return next((c.index for c in self.cells if c.status != 'same'), None)

    def __repr__(self) -> str:
        same = sum(c.status == 'same' for c in self.cells)
        state = 'identical' if self.identical else f'first divergence at cell ' \
            f'{self.first_divergent_cell}'
        return (f'DivergenceReport({same}/{len(self.cells)} cells same, {len(self.calls)} '
                f'call divergences, {state})')

    def text(self) -> str:
        """Return the report as people read it: one line per cell, then the details."""
        lines = ['replay vs recording:']
        for cell in self.cells:
            code = ' (code changed)' if cell.code_changed else ''
            if cell.status == 'same':
                lines.append(f'  cell {cell.index}: output identical{code}')
            elif cell.status == 'changed':
                lines.append(f'  cell {cell.index}: output differs{code} at line {cell.line}')
                lines.append(f'      replay:    {cell.replayed_line!r}')
                lines.append(f'      recording: {cell.recorded_line!r}')
            elif cell.status == 'extra':
                lines.append(f'  cell {cell.index}: not in the recording (extra cell)')
            else:
                lines.append(f'  cell {cell.index}: recorded but not replayed')
        for call in self.calls:
            recorded = call.recorded or 'no call'
            lines.append(f'  cell {call.cell}, call {call.call}: '
                         f'{call.called or "(none)"} vs recorded {recorded}: {call.action}')
        lines.extend(f'  result not exact: {note}' for note in self.rebuild_notes)
        lines.extend(f'  note: {note}' for note in self.notes)
        recorded = self.recorded_end_reason or 'none (the recording has no end record)'
        if self.end_reason != self.recorded_end_reason:
            lines.append(f'  end reason: {self.end_reason} vs recorded {recorded}')
        else:
            lines.append(f'  end reason: {self.end_reason}, as recorded')
        lines.append('identical to the recording' if self.identical else
                     f'DIVERGED: first at cell {self.first_divergent_cell}'
                     if self.first_divergent_cell is not None else 'DIVERGED')
        return '\n'.join(lines)


def build_report(replayed: Sequence[tuple[str, CellResult]],
                 recorded: Sequence[Mapping[str, Any]], *,
                 calls: Sequence[CallDivergence] = (), rebuild_notes: Sequence[str] = (),
                 end_reason: str = '', recorded_end_reason: str | None = None,
                 notes: Sequence[str] = ()) -> DivergenceReport:
    """
    Compare replayed cells with recorded ones by cell index.

    :param replayed: ``(code, result)`` of each replayed cell, in order.
    :param recorded: the recording's cells (``BagRecording.cells``).
    :param calls: the call divergences of the bag primitives.
    :param rebuild_notes: results whose rebuilt repr differs from the recorded one.
    :param end_reason: the replay's end reason.
    :param recorded_end_reason: the recording's end reason (None without an end record).
    :param notes: anything else the report must say.
    :returns: the report.
    """
    by_index = {cell['cell']: cell for cell in recorded}
    cells = [compare_cell(result.index, code, result, by_index.get(result.index))
             for code, result in replayed]
    done = {result.index for _, result in replayed}
    cells += [CellComparison(index=index, status='missing')
              for index in sorted(by_index) if index not in done]
    return DivergenceReport(cells=tuple(cells), calls=tuple(calls),
                            rebuild_notes=tuple(rebuild_notes), end_reason=end_reason,
                            recorded_end_reason=recorded_end_reason, notes=tuple(notes))

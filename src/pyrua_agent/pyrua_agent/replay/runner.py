"""
``pyrua replay RUN``: run a recorded episode's cells again against its bag, and compare.

The cells (the recorded ones, or a person's edited copy from ``write_script``) run in a
fresh ``CellRuntime`` through ``run_episode``, with the replay planner, against the bag
primitives of the recording (``replay.bag_primitives``): no robot, no simulator. Each cell
is compared with the recorded cell of the same index as soon as it ends (``on_cell``), and
the ``DivergenceReport`` at the end says, per cell, whether the output is identical and
where it first differs, which calls did not match, and whether the end reason did.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import dataclasses
from dataclasses import dataclass
import os
from pathlib import Path
import re
from typing import Any

from .bag_primitives import bag_world, BagPrimitives
from .divergence import build_report, CellComparison, compare_cell, DivergenceReport
from ..budgets import BudgetConfig, Budgets
from ..episode import EpisodeResult, run_episode
from ..planners.base import Cell, Finish, Planner, TaskCard
from ..planners.percent import read_percent_file, ScriptCell
from ..planners.replay import ReplayPlanner
from ..recording.bag_reader import BagRecording, read_bag
from ..runtime import CellResult

CARD_LABEL = 'task card'
_MARKER = re.compile(r'^# ?%%')
ReplayHook = Callable[[Cell, CellResult, CellComparison], None]


@dataclass(frozen=True, slots=True)
class ReplayOutcome:
    """The replayed episode's record and how it differs from the recording."""

    result: EpisodeResult
    report: DivergenceReport
    recording: BagRecording

    def __repr__(self) -> str:
        return f'ReplayOutcome({self.result!r}, {self.report!r})'


class _ExactCells:
    """
    Run exactly the given cells through a ``ReplayPlanner``, adding none.

    The script planner starts with a cell that defines ``instruction`` from the task card;
    a replay must not add it, because the recording holds its own cells (its card cell
    too, when the recorded planner wrote one) and cell indices must stay the recorded ones
    (tracebacks name ``<cell k>``). The added cell is recognised by its label and code;
    the replayed cells carry other labels.
    """

    def __init__(self, planner: ReplayPlanner) -> None:
        self.planner = planner
        self.name = planner.name
        self.ledger = planner.ledger
        self._card_code: str | None = None

    def __repr__(self) -> str:
        return f'_ExactCells({self.planner!r})'

    def begin(self, card: TaskCard, budgets: Budgets) -> None:
        self.planner.begin(card, budgets)
        self._card_code = f'instruction = {card.instruction!r}'

    def next_step(self) -> Cell | Finish:
        step = self.planner.next_step()
        code, self._card_code = self._card_code, None
        if isinstance(step, Cell) and step.label == CARD_LABEL and step.code == code:
            step = self.planner.next_step()
        return step

    def observe(self, result: CellResult) -> None:
        self.planner.observe(result)

    def close(self) -> None:
        self.planner.close()


def recorded_cells(recording: BagRecording) -> list[ScriptCell]:
    """Return the recording's cells as script cells, titled with their labels and index."""
    return [ScriptCell(title=_title(cell), code=cell['code'], line=cell['cell'])
            for cell in recording.cells]


def _title(cell: Mapping[str, Any]) -> str:
    label = cell.get('label') or ''
    return f'{label} (recorded cell {cell["cell"]})' if label else f'recorded cell {cell["cell"]}'


def write_script(run: str | os.PathLike[str], path: str | os.PathLike[str]) -> Path:
    """
    Write a recorded episode's cells as a percent file to edit and replay with ``--script``.

    :param run: the run directory (or its bag).
    :param path: the ``.py`` file to write.
    :returns: the path written.
    :raises ValueError: when a cell holds a ``# %%`` line (it would split the cell).
    """
    recording = read_bag(run)
    parts = ['# %% [markdown]', f'# Cells of the recorded episode {recording.path.parent}.',
             f'# Edit them, then: pyrua replay {recording.path.parent} --script {path}', '']
    for cell in recording.cells:
        for number, line in enumerate(cell['code'].splitlines(), start=1):
            if _MARKER.match(line):
                raise ValueError(f'cell {cell["cell"]} line {number} starts with "# %%" vs '
                                 'none in a percent file cell; edit the transcript instead')
        parts += [f'# %% {_title(cell)}', cell['code'].strip('\n'), '']
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text('\n'.join(parts), encoding='utf-8')
    return out


def recorded_budgets(recording: BagRecording) -> BudgetConfig:
    """Return the recorded episode's budgets (the defaults for fields it did not record)."""
    config = (recording.start or {}).get('config') or {}
    values = config.get('budgets') or {}
    known = {f.name for f in dataclasses.fields(BudgetConfig)}
    return BudgetConfig(**{k: v for k, v in values.items() if k in known})


def replay_episode(run: str | os.PathLike[str], *,
                   script: str | os.PathLike[str] | None = None,
                   on_cell: ReplayHook | None = None,
                   budgets: BudgetConfig | None = None, max_output_chars: int = 8000,
                   primitives: BagPrimitives | None = None) -> ReplayOutcome:
    """
    Run a recorded episode's cells (or ``script``'s) again against its bag and compare.

    :param run: the run directory (or its bag); a bag whose writer was killed is repaired.
    :param script: a percent file of cells to run instead of the recorded ones (e.g. an
        edited ``write_script`` copy); cell ``k`` is compared with recorded cell ``k``.
    :param on_cell: called after each cell with the cell, its result and its comparison
        with the recorded cell (to step through the episode).
    :param budgets: episode limits; default: the recorded episode's.
    :param max_output_chars: per-cell output kept, as in the recorded run.
    :param primitives: the bag primitives (default: over the primitive library).
    :returns: the replayed episode and its divergence report.
    :raises FileNotFoundError: when ``run`` holds no bag, or ``script`` does not exist.
    :raises ValueError: for a bag without an episode start, or a script without cells.
    """
    recording = read_bag(run) if primitives is None else primitives.recording
    bag = primitives if primitives is not None else BagPrimitives(recording)
    world, _ = bag_world(recording, bag)
    config = (recording.start or {}).get('config') or {}
    world = dataclasses.replace(world, success_guard=bool(config.get('success_guard', True)))
    if script is not None:
        cells, source = read_percent_file(script), str(script)
    else:
        cells, source = recorded_cells(recording), str(recording.path.parent)
    if not cells:
        raise ValueError(f'recording {recording.path.parent} has no finished cell vs at least '
                         'one to replay')
    planner: Planner = _ExactCells(ReplayPlanner(cells, source=source))
    recorded = {cell['cell']: cell for cell in recording.cells}
    replayed: list[tuple[str, CellResult]] = []

    def hook(cell: Cell, result: CellResult) -> None:
        bag.end_cell(result.index)
        replayed.append((cell.code, result))
        if on_cell is not None:
            on_cell(cell, result, compare_cell(result.index, cell.code, result,
                                               recorded.get(result.index)))

    result = run_episode(world, planner, budgets=budgets or recorded_budgets(recording),
                         max_output_chars=max_output_chars, on_cell=hook)
    end = recording.end
    notes = _notes(recording, bag)
    report = build_report(replayed, recording.cells, calls=bag.divergences,
                          rebuild_notes=bag.rebuild_notes, end_reason=result.end_reason,
                          recorded_end_reason=end.get('end_reason') if end else None,
                          notes=notes)
    return ReplayOutcome(result=result, report=report, recording=recording)


def _notes(recording: BagRecording, bag: BagPrimitives) -> Sequence[str]:
    notes = []
    if recording.repaired:
        notes.append('the bag had no metadata.yaml (its writer was killed) and was repaired')
    if recording.end is None:
        notes.append('the recording has no end record: the evaluator verdict is unknown')
    if bag.diverged:
        notes.append('after the first call divergence the recorded success verdict no longer '
                     'applies: success and score are reported as unknown')
    return notes

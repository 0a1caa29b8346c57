"""
``pyrua replay RUN``: run a recorded episode's cells again against its bag, and compare.

The replay is one episode of the shared assembly: ``replay_spec`` parses the recording into
an ``EpisodeSpec`` on the ``'replay'`` world (the bag primitives of ``replay.bag_primitives``:
no robot, no simulator) with the registry's replay planner, which runs the cells (the
recorded ones, or a person's edited copy from ``write_script``) exactly, and
``run_episode_spec`` runs it. Each cell
is compared with the recorded cell of the same index as soon as it ends (``on_cell``), and
the ``DivergenceReport`` at the end says, per cell, whether the output is identical and
where it first differs, which calls did not match, and whether the end reason did.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
import dataclasses
from dataclasses import dataclass
import functools
import os
from pathlib import Path
import re

from .bag_primitives import BagPrimitives, episode_start, open_recording
from .divergence import build_report, CellComparison, compare_cell, DivergenceReport
from ..budgets import BudgetConfig
from ..episode import EpisodeResult, EpisodeSpec, run_episode_spec
from ..planners.base import Cell
from ..planners.percent import read_percent_file
from ..planners.replay import recorded_title
from ..recording.bag_reader import BagRecording, read_bag
from ..runtime import CellResult

_MARKER = re.compile(r'^# ?%%')
ReplayHook = Callable[[Cell, CellResult, CellComparison], None]


@dataclass(frozen=True, slots=True)
class ReplayOutcome:
    """The replayed episode's record and how it differs from the recording."""

    result: EpisodeResult
    report: DivergenceReport
    recording: BagRecording
    spec: EpisodeSpec

    def __repr__(self) -> str:
        return f'ReplayOutcome({self.result!r}, {self.report!r})'


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
        parts += [f'# %% {recorded_title(cell)}', cell['code'].strip('\n'), '']
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


def replay_spec(recording: BagRecording, *, script: str | os.PathLike[str] | None = None,
                budgets: BudgetConfig | None = None,
                max_output_chars: int = 8000) -> EpisodeSpec:
    """
    Return the ``EpisodeSpec`` of a replay: the recorded episode on the ``'replay'`` world.

    :param recording: the episode bag read back.
    :param script: a percent file of cells to run instead of the recorded ones.
    :param budgets: episode limits; default: the recorded episode's.
    :param max_output_chars: per-cell output kept, as in the recorded run.
    :raises FileNotFoundError: when ``script`` does not exist.
    :raises ValueError: for a bag without an episode start, or no cells to run.
    """
    start = episode_start(recording)
    run_dir = str(recording.path.parent)
    if script is not None:
        read_percent_file(script)  # refuses a missing or empty file before anything runs
    elif not recording.cells:
        raise ValueError(f'recording {run_dir} has no finished cell vs at least one to replay')
    config = start.get('config') or {}
    return EpisodeSpec(task=start.get('task') or 'replay', seed=int(start.get('seed', 0)),
                       layout=int(start.get('layout', 0)), world='replay', recording=run_dir,
                       planner='replay', source=run_dir if script is None else str(script),
                       budgets=budgets or recorded_budgets(recording),
                       max_output_chars=max_output_chars,
                       success_guard=bool(config.get('success_guard', True)), record=False)


def replay_episode(run: str | os.PathLike[str], *,
                   script: str | os.PathLike[str] | None = None,
                   on_cell: ReplayHook | None = None,
                   budgets: BudgetConfig | None = None, max_output_chars: int = 8000,
                   primitives: BagPrimitives | None = None) -> ReplayOutcome:
    """
    Run a recorded episode's cells (or ``script``'s) again against its bag and compare.

    The replay is one ``run_episode_spec`` episode (``replay_spec``): the ``'replay'``
    world answers from the bag, the registry's replay planner runs the cells exactly.

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
    spec = replay_spec(recording, script=script, budgets=budgets,
                       max_output_chars=max_output_chars)
    recorded = {cell['cell']: cell for cell in recording.cells}
    replayed: list[tuple[str, CellResult]] = []

    def hook(cell: Cell, result: CellResult) -> None:
        replayed.append((cell.code, result))
        if on_cell is not None:
            on_cell(cell, result, compare_cell(result.index, cell.code, result,
                                               recorded.get(result.index)))

    result = run_episode_spec(spec, opener=functools.partial(open_recording, primitives=bag),
                              on_cell=hook)
    end = recording.end
    notes = _notes(recording, bag)
    report = build_report(replayed, recording.cells, calls=bag.divergences,
                          rebuild_notes=bag.rebuild_notes, end_reason=result.end_reason,
                          recorded_end_reason=end.get('end_reason') if end else None,
                          notes=notes)
    return ReplayOutcome(result=result, report=report, recording=recording, spec=spec)


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

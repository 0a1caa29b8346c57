"""
``pyrua analyze DIR [DIR...]``: every table and plot, from the episode records only.

``analyze(records)`` returns the tables and budget curves; ``write_analysis(dirs, out)``
writes ``tables.md``, one CSV per table, PNG plots (matplotlib, Agg backend) and one
self-contained ``report.html`` (inline CSS, plots as data URLs).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
import html
import os
from pathlib import Path
from typing import Any

from .metrics import (
    breakdown_table,
    end_reason_table,
    group,
    interaction_table,
    label,
    leaderboard_table,
    overall_table,
    usage_by_task_table,
)
from .paired import (
    budget_curves,
    budget_table,
    BudgetCurve,
    curve_table,
    llm_interfaces,
    paired_table,
    pairs,
)
from .provenance import provenance_line
from .store import is_final, read_records
from .tables import Table

COST_MODEL_BANNER = (
    'Interfaces marked (cost model) replayed a fixed plan (the bundled reference program) '
    'through the loopback server: their calls, tokens and dollars price the interface on '
    "that plan. They are not a measurement of a model's behaviour.")
CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1100px;
       color: #1d232a; background: #fafbfc; }
h1 { font-size: 22px; } h3 { font-size: 16px; margin: 26px 0 6px; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #d8dee4; padding: 3px 8px; }
th { background: #f3f5f7; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #56606b; font-size: 12.5px; max-width: 1000px; }
.banner { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px; padding: 8px 12px; }
img { max-width: 100%; border: 1px solid #d8dee4; background: #fff; }
"""


@dataclass(frozen=True, slots=True)
class Analysis:
    """The tables and budget curves of a set of records."""

    title: str
    episodes: int
    tables: tuple[Table, ...]
    curves: tuple[BudgetCurve, ...]
    cost_model: bool
    leaderboard: Table
    provenance: str = ''

    def __repr__(self) -> str:
        return f'Analysis({self.title!r}: {self.episodes} episodes, {len(self.tables)} tables)'

    def table(self, name: str) -> Table:
        """Return the table called ``name``; raise KeyError listing them otherwise."""
        for table in self.tables:
            if table.name == name:
                return table
        raise KeyError(f'no table {name!r}; tables: {[t.name for t in self.tables]}')


def load_records(dirs: Sequence[str | os.PathLike[str]]) -> list[dict[str, Any]]:
    """
    Return the final records of the given ``pyrua eval`` output folders.

    :raises ValueError: when two folders hold the same episode (interface, task, seed,
        layout), which would count it twice.
    """
    records: dict[str, dict[str, Any]] = {}
    origin: dict[str, str] = {}
    for folder in dirs:
        for record in read_records(folder):
            if not is_final(record):
                continue
            key = record['episode_id']
            if key in records:
                raise ValueError(f'episode {key} is in both {origin[key]} and {folder}; '
                                 'analyze one of them, or rename the interface in one spec')
            records[key], origin[key] = record, str(folder)
    if not records:
        raise ValueError(f'no finished episode records in {", ".join(map(str, dirs))}; run '
                         '`pyrua eval SPEC --out DIR` first')
    return list(records.values())


def analyze(records: Sequence[dict[str, Any]], title: str = 'pyrua evaluation') -> Analysis:
    """
    Compute every table from ``records``.

    :param records: final episode records (``pyrua eval`` output).
    :param title: the report's title.
    :returns: the analysis.
    """
    from pyrua_sim.tasks import DIMENSIONS

    groups = group(records)
    leaderboard = leaderboard_table(groups, DIMENSIONS)
    tables = [overall_table(groups), leaderboard,
              breakdown_table(groups, 'task', 'Success rate per task'),
              breakdown_table(groups, 'dimension', 'Success rate per dimension'),
              breakdown_table(groups, 'suite', 'Success rate per benchmark suite'),
              breakdown_table(groups, 'task', 'Score per task (staged tasks)', metric='Score')]
    names = llm_interfaces(groups)
    for a, b in pairs(names):
        tables.append(paired_table(groups, a, b))
    curves = tuple(budget_curves(groups, names))
    if len(curves) >= 2:
        tables.append(budget_table(groups, curves))
    if curves:
        tables.append(curve_table(curves))
    if names:
        tables.append(usage_by_task_table({n: groups[n] for n in names}))
    tables += [end_reason_table(groups), interaction_table(groups)]
    line = perception_line(groups)
    tables = [with_perception(t, line) for t in tables]
    return Analysis(title=title, episodes=len(records), tables=tuple(tables), curves=curves,
                    cost_model=any(r.get('cost_model') for r in records),
                    leaderboard=tables[1], provenance=provenance_line(records))


PRIVILEGED_PERCEPTION = frozenset({'oracle'})
"""Perception modes that read simulator ground truth: every table says so."""


def perception_line(groups: Mapping[str, Sequence[dict[str, Any]]]) -> str:
    """
    Return the line every table carries: which perception each interface's episodes used.

    A record without a ``perception`` key counts as ``'unknown'``; a privileged mode is
    marked ``PRIVILEGED``.
    """
    def shown(modes: Sequence[str]) -> str:
        return '+'.join(m + (' (PRIVILEGED: simulator ground truth)'
                             if m in PRIVILEGED_PERCEPTION else '') for m in modes)

    modes = {name: tuple(sorted({str(r.get('perception') or 'unknown') for r in rows}))
             for name, rows in groups.items()}
    if len(set(modes.values())) <= 1:
        return f'Perception: {shown(next(iter(modes.values()), ("unknown",)))}.'
    return 'Perception: ' + '; '.join(f'{name} {shown(m)}' for name, m in modes.items()) + '.'


def with_perception(table: Table, line: str) -> Table:
    """Return ``table`` with the perception line appended to its note."""
    return replace(table, note=f'{table.note} {line}'.strip())


def markdown(analysis: Analysis) -> str:
    """Return the whole analysis as one Markdown document."""
    parts = [f'# {analysis.title}', '', f'{analysis.episodes} episodes.', '']
    if analysis.provenance:
        parts += [analysis.provenance, '']
    if analysis.cost_model:
        parts += [f'**{COST_MODEL_BANNER}**', '']
    parts += [t.markdown() for t in analysis.tables]
    return '\n'.join(parts)


def write_plots(analysis: Analysis, out: Path) -> list[Path]:
    """Write the PNG plots (SR vs budget, leaderboard by dimension); return their paths."""
    import matplotlib

    matplotlib.use('Agg')
    from matplotlib import pyplot

    paths = []
    if analysis.curves:
        figure, axes = pyplot.subplots(figsize=(7, 4.2), dpi=110)
        spent = [t for c in analysis.curves for t in c.solved_tokens if t > 0] or [1]
        low, top = min(spent) / 2, max(spent) * 1.5
        for curve in analysis.curves:
            xs = [low, *(t for t in curve.solved_tokens if t > low), top]
            ys = [curve.sr_at(x) * 100 for x in xs]
            axes.step(xs, ys, where='post', label=f'{curve.interface} (final '
                      f'{curve.final_sr * 100:.1f}%)')
        axes.set_xscale('log')
        axes.set_xlabel('input-token budget per episode, log scale (retrospective cutoff)')
        axes.set_ylabel('success rate, %')
        axes.set_ylim(0, 100)
        axes.grid(alpha=0.3)
        axes.legend()
        title = 'SR against input-token budget'
        axes.set_title(title + (' - cost model' if analysis.cost_model else ''))
        figure.tight_layout()
        paths.append(out / 'sr_vs_budget.png')
        figure.savefig(paths[-1])
        pyplot.close(figure)
    board = analysis.leaderboard
    dims = board.columns[1:]
    if board.rows:
        figure, axes = pyplot.subplots(figsize=(8, 4.2), dpi=110)
        width = 0.8 / len(board.rows)
        for i, row in enumerate(board.rows):
            values = [0 if v is None else v * 100 for v in row[1:]]
            axes.bar([d + i * width for d in range(len(dims))], values, width, label=row[0])
        axes.set_xticks([d + width * (len(board.rows) - 1) / 2 for d in range(len(dims))],
                        dims, rotation=15)
        axes.set_ylabel('success rate, %')
        axes.set_ylim(0, 100)
        axes.legend()
        axes.set_title('Success rate by dimension (missing dimensions drawn at 0)')
        figure.tight_layout()
        paths.append(out / 'leaderboard.png')
        figure.savefig(paths[-1])
        pyplot.close(figure)
    return paths


def page(analysis: Analysis, plots: Sequence[Path]) -> str:
    """Return the analysis as one self-contained HTML document (tables, plots inline)."""
    images = ''.join(
        f'<h3>{html.escape(p.stem)}</h3><img alt="{html.escape(p.stem)}" src="data:image/png;'
        f'base64,{base64.b64encode(p.read_bytes()).decode()}">' for p in plots)
    banner = f'<p class="banner">{html.escape(COST_MODEL_BANNER)}</p>' if analysis.cost_model \
        else ''
    body = ''.join(t.html() for t in analysis.tables)
    return (f'<!doctype html><html><head><meta charset="utf-8"><title>'
            f'{html.escape(analysis.title)}</title><style>{CSS}</style></head><body>'
            f'<h1>{html.escape(analysis.title)}</h1><p>{analysis.episodes} episodes.</p>'
            f'{banner}{body}{images}</body></html>\n')


def write_analysis(dirs: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str],
                   title: str | None = None) -> list[Path]:
    """
    Analyze the records of ``dirs`` and write every output into ``out``.

    :param dirs: ``pyrua eval`` output folders.
    :param out: folder for tables.md, the CSVs, the PNGs and report.html.
    :param title: the report title (default: the folders' names).
    :returns: the written paths, report.html last.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    records = load_records(dirs)
    analysis = analyze(records, title or 'pyrua evaluation: ' + ', '.join(
        Path(d).name for d in dirs))
    written = []
    for table in analysis.tables:
        path = out / f'{table.name}.csv'
        path.write_text(table.csv())
        written.append(path)
    written.append(out / 'tables.md')
    written[-1].write_text(markdown(analysis))
    plots = write_plots(analysis, out)
    written += plots
    written.append(out / 'report.html')
    written[-1].write_text(page(analysis, plots))
    return written


__all__ = ['Analysis', 'analyze', 'label', 'load_records', 'write_analysis']

"""
Per-interface tables from episode records: success rates, scores, leaderboard, end reasons.

Every function takes the records grouped by interface (``group``) and returns a ``Table``.
The leaderboard follows the RoboDojo format: a task's value is its success rate (a
Generalization task's is the mean of its standard and randomized halves), a dimension's is
the mean of its tasks, and Average is the unweighted mean of the dimensions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from statistics import fmean
from typing import Any

from pyrua_agent.budgets import END_REASONS

from .tables import Table

Record = Mapping[str, Any]
Groups = Mapping[str, Sequence[Record]]
COST_MODEL_SUFFIX = ' (cost model)'


def group(records: Sequence[Record]) -> dict[str, list[Record]]:
    """Return records by interface, interfaces in order of first appearance."""
    groups: dict[str, list[Record]] = {}
    for record in records:
        groups.setdefault(record['interface'], []).append(record)
    return groups


def label(name: str, records: Sequence[Record]) -> str:
    """Return the column label of an interface (cost-model interfaces say so)."""
    return name + COST_MODEL_SUFFIX if any(r.get('cost_model') for r in records) else name


def success_rate(records: Sequence[Record]) -> float | None:
    """Return the fraction of records that succeeded (None for no records)."""
    return sum(bool(r['success']) for r in records) / len(records) if records else None


def mean_score(records: Sequence[Record]) -> float | None:
    """Return the mean staged score over records that have one (None when none has)."""
    scores = [r['score'] for r in records if r.get('score') is not None]
    return fmean(scores) if scores else None


def _keys(groups: Groups, key: Callable[[Record], Any]) -> list[Any]:
    seen: list[Any] = []
    for records in groups.values():
        for record in records:
            value = key(record)
            if value not in seen:
                seen.append(value)
    return seen


def overall_table(groups: Groups) -> Table:
    """Return episodes, solved, SR, mean score and infra errors per interface."""
    rows = tuple(
        (label(name, rs), len(rs), sum(bool(r['success']) for r in rs), success_rate(rs),
         mean_score(rs), sum(r['end_reason'] == 'infra_error' for r in rs))
        for name, rs in groups.items())
    return Table('sr_overall', 'Success rate on all instances',
                 ('interface', 'episodes', 'solved', 'SR', 'Score', 'infra_error'), rows,
                 ('', 'int', 'int', 'pct', 'ratio', 'int'),
                 'Score: mean staged process reward where the task has stages (1.0 if solved).')


def breakdown_table(groups: Groups, field: str, title: str, *,
                    metric: str = 'SR') -> Table:
    """
    Return SR (or Score) per value of ``field`` (``task``, ``dimension``, ``suite``).

    :param groups: records by interface.
    :param field: the record key to break down by.
    :param title: the heading.
    :param metric: ``'SR'`` or ``'Score'``.
    """
    compute = success_rate if metric == 'SR' else mean_score
    values = _keys(groups, lambda r: r.get(field))
    rows = []
    for value in values:
        cells = [compute([r for r in rs if r.get(field) == value]) for rs in groups.values()]
        if metric == 'Score' and all(c is None for c in cells):
            continue
        count = max(sum(r.get(field) == value for r in rs) for rs in groups.values())
        rows.append((value if value is not None else 'n/a', count, *cells))
    columns = (field, 'episodes', *(label(n, rs) for n, rs in groups.items()))
    fmt = 'pct' if metric == 'SR' else 'ratio'
    name = f'{"sr" if metric == "SR" else "score"}_by_{field}'
    return Table(name, title, columns, tuple(rows), ('', 'int', *(fmt for _ in groups)),
                 'episodes: per interface (the largest count where they differ).')


def task_value(records: Sequence[Record]) -> tuple[float | None, str]:
    """
    Return a task's leaderboard value and a note: SR, or the mean of the halves' SRs.

    A Generalization task run on one half only gets that half's SR and a note saying so.
    """
    halves = {r.get('half') for r in records}
    if halves <= {None}:
        return success_rate(records), ''
    rates = {h: success_rate([r for r in records if r.get('half') == h]) for h in halves}
    if set(rates) != {'standard', 'randomized'}:
        return fmean(rates.values()), f'{records[0]["task"]}: {"/".join(sorted(rates))} half only'
    return fmean(rates.values()), ''


def leaderboard_table(groups: Groups, dimensions: Sequence[str]) -> Table:
    """
    Return the leaderboard: one column per dimension (mean of its tasks' values), Average.

    :param groups: records by interface.
    :param dimensions: the dimension names in leaderboard order.
    """
    rows, notes = [], []
    for name, records in groups.items():
        values = []
        for dimension in dimensions:
            tasks = _keys({name: records}, lambda r: r['task'] if r.get('dimension') ==
                          dimension else None)
            task_values = []
            for task in (t for t in tasks if t is not None):
                value, note = task_value([r for r in records if r['task'] == task])
                task_values.append(value)
                if note and note not in notes:
                    notes.append(note)
            values.append(fmean(task_values) if task_values else None)
        present = [v for v in values if v is not None]
        missing = [d for d, v in zip(dimensions, values, strict=True) if v is None]
        if missing and present:
            notes.append(f'{name}: Average over {len(present)} of {len(dimensions)} '
                         f'dimensions (none run: {", ".join(missing)})')
        rows.append((label(name, records), *values, fmean(present) if present else None))
    note = ('Task value = SR; a Generalization task = mean of its standard and randomized '
            'halves; dimension = mean of its tasks; Average = unweighted mean of dimensions.')
    if notes:
        note += ' ' + '; '.join(notes) + '.'
    return Table('leaderboard', 'Leaderboard (success rate by dimension)',
                 ('interface', *dimensions, 'Average'), tuple(rows),
                 ('', *('pct' for _ in dimensions), 'pct'), note)


def end_reason_table(groups: Groups) -> Table:
    """Return each end reason's share of episodes per interface."""
    reasons = [r for r in END_REASONS if any(x['end_reason'] == r for rs in groups.values()
                                             for x in rs)]
    rows = []
    for reason in reasons:
        cells = []
        for records in groups.values():
            count = sum(r['end_reason'] == reason for r in records)
            cells += [count, count / len(records)]
        rows.append((reason, *cells))
    columns = ['end reason']
    formats = ['']
    for name, records in groups.items():
        columns += [f'{label(name, records)} n', f'{label(name, records)} share']
        formats += ['int', 'pct']
    return Table('end_reasons', 'End reasons', tuple(columns), tuple(rows), tuple(formats))


def interaction_table(groups: Groups) -> Table:
    """Return calls and cells per episode, cells per LLM call and images per episode."""
    rows = []
    for name, records in groups.items():
        calls = sum(r['llm_calls'] for r in records)
        cells = sum(r['cells'] for r in records)
        shown = [sum(c.get('images', 0) for c in r.get('cell_log', ())) for r in records]
        rows.append((label(name, records), fmean(r['llm_calls'] for r in records),
                     fmean(r['cells'] for r in records), cells / calls if calls else None,
                     fmean(shown), fmean(r.get('images_sent', 0) for r in records)))
    return Table('interaction', 'Cells per LLM call and images per episode',
                 ('interface', 'LLM calls / episode', 'cells / episode', 'cells / LLM call',
                  'images shown / episode', 'images sent / episode'), tuple(rows),
                 ('', 'float', 'float', 'ratio', 'float', 'float'),
                 'images shown: robo.show pictures the cells returned; images sent: pictures '
                 'in the model requests (task card included).')


def usage_by_task_table(groups: Groups) -> Table:
    """Return mean LLM calls, input tokens and dollars per episode, per task and interface."""
    tasks = _keys(groups, lambda r: r['task'])
    columns, formats = ['task'], ['']
    for name, records in groups.items():
        shown = label(name, records)
        columns += [f'{shown} calls', f'{shown} input tokens', f'{shown} $']
        formats += ['float', 'float', 'usd']
    rows = []
    for task in tasks:
        cells: list[Any] = [task]
        for records in groups.values():
            mine = [r for r in records if r['task'] == task]
            costs = [r.get('cost_usd') for r in mine]
            cells += [fmean(r['llm_calls'] for r in mine) if mine else None,
                      fmean(r['input_tokens'] for r in mine) if mine else None,
                      fmean(costs) if mine and None not in costs else None]
        rows.append(tuple(cells))
    return Table('usage_by_task', 'LLM calls, input tokens and dollars per episode, by task',
                 tuple(columns), tuple(rows), tuple(formats),
                 'Means over all episodes of the task (solved or not); $ n/a: a model has no '
                 'price in the price table.')

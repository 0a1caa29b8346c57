"""
Paired comparison of two LLM interfaces, and success against a retrospective token budget.

Paired: instances (task, seed, layout) run by both; solved by both, by one only, by neither;
on the jointly solved ones, mean LLM calls, input tokens (cached shown), output tokens and
dollars per interface, and the ratios of totals A/B. The input-token ratio decomposes exactly
into call ratio x tokens-per-call ratio.

Budget curves: an episode counts as solved under an input-token budget B when it succeeded
having spent at most B input tokens in all (a retrospective cutoff: the run is not repeated).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .metrics import Groups, label, Record
from .tables import Table


def llm_interfaces(groups: Groups) -> list[str]:
    """Return the interfaces whose episodes call a model (script/replay make no calls)."""
    from pyrua_agent.planners import PLANNERS

    def calls_a_model(planner: Any) -> bool:
        return planner in PLANNERS and PLANNERS[planner].needs_endpoint

    return [name for name, records in groups.items()
            if all(calls_a_model(r.get('planner')) for r in records)]


def instance(record: Record) -> tuple[str, int, int]:
    """Return the instance key of a record: (task, seed, layout)."""
    return record['task'], record['seed'], record['layout']


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


def _total(records: Sequence[Record], key: str) -> float | None:
    values = [r.get(key) for r in records]
    return None if any(v is None for v in values) else sum(values)


def _mean(records: Sequence[Record], key: str) -> float | None:
    total = _total(records, key)
    return None if total is None or not records else total / len(records)


def paired_table(groups: Groups, a: str, b: str) -> Table:
    """
    Return the paired comparison of interfaces ``a`` and ``b`` (ratios are a/b).

    :raises ValueError: when the two share no instance.
    """
    by_a = {instance(r): r for r in groups[a]}
    by_b = {instance(r): r for r in groups[b]}
    shared = [k for k in by_a if k in by_b]
    if not shared:
        raise ValueError(f'interfaces {a!r} and {b!r} ran no common (task, seed, layout); '
                         'a paired comparison needs the same instances')
    both = [k for k in shared if by_a[k]['success'] and by_b[k]['success']]
    only_a = sum(by_a[k]['success'] and not by_b[k]['success'] for k in shared)
    only_b = sum(by_b[k]['success'] and not by_a[k]['success'] for k in shared)
    ra, rb = [by_a[k] for k in both], [by_b[k] for k in both]
    rows: list[tuple[Any, ...]] = [
        ('instances run by both', len(shared), len(shared), None, 'int'),
        ('solved by both', len(both), len(both), None, 'int'),
        ('solved by this one only', only_a, only_b, None, 'int'),
        ('solved by neither', len(shared) - len(both) - only_a - only_b, None, None, 'int'),
    ]
    for title, key, fmt in (('LLM calls', 'llm_calls', 'float'),
                            ('input tokens', 'input_tokens', 'float'),
                            ('cached input tokens', 'cached_input_tokens', 'float'),
                            ('output tokens', 'output_tokens', 'float'),
                            ('cost $', 'cost_usd', 'usd')):
        rows.append((f'mean {title} (jointly solved)', _mean(ra, key), _mean(rb, key),
                     _ratio(_total(ra, key), _total(rb, key)), fmt))
    calls = _ratio(_total(ra, 'llm_calls'), _total(rb, 'llm_calls'))
    tokens = _ratio(_total(ra, 'input_tokens'), _total(rb, 'input_tokens'))
    per_call_a = _ratio(_total(ra, 'input_tokens'), _total(ra, 'llm_calls'))
    per_call_b = _ratio(_total(rb, 'input_tokens'), _total(rb, 'llm_calls'))
    rows.append(('input tokens per call (jointly solved)', per_call_a, per_call_b,
                 _ratio(per_call_a, per_call_b), 'float'))
    decomposition = ''
    if None not in (calls, tokens) and _ratio(per_call_a, per_call_b) is not None:
        decomposition = (f' Token ratio {tokens:.3f} = call ratio {calls:.3f} x tokens-per-call '
                         f'ratio {_ratio(per_call_a, per_call_b):.3f}.')
    la, lb = label(a, groups[a]), label(b, groups[b])
    return Table(f'paired_{a}_vs_{b}', f'Paired: {la} vs {lb}',
                 ('measure', la, lb, f'ratio {a}/{b}'),
                 tuple(row[:4] for row in rows), ('', 'row', 'row', 'ratio'),
                 'Means over the instances both solved; ratios are of totals over them.'
                 + decomposition, row_formats=tuple(row[4] for row in rows))


@dataclass(frozen=True, slots=True)
class BudgetCurve:
    """SR of one interface against the input-token budget (a step function)."""

    interface: str
    episodes: int
    solved_tokens: tuple[int, ...]

    def __repr__(self) -> str:
        return (f'BudgetCurve({self.interface}: {len(self.solved_tokens)}/{self.episodes} '
                f'solved, final SR {self.final_sr:.3f})')

    @property
    def final_sr(self) -> float:
        """Return the SR with no budget."""
        return len(self.solved_tokens) / self.episodes if self.episodes else 0.0

    def sr_at(self, budget: float) -> float:
        """Return the SR when every episode is cut off at ``budget`` input tokens."""
        if not self.episodes:
            return 0.0
        return sum(t <= budget for t in self.solved_tokens) / self.episodes

    def budget_for(self, target_sr: float) -> int | None:
        """Return the smallest budget at which this SR reaches ``target_sr`` (None: never)."""
        if target_sr <= 0:
            return 0
        needed = target_sr * self.episodes
        for count, tokens in enumerate(self.solved_tokens, start=1):
            if count >= needed - 1e-9:
                return tokens
        return None


def budget_curves(groups: Groups, names: Sequence[str]) -> list[BudgetCurve]:
    """Return the budget curve of each named interface."""
    return [BudgetCurve(name, len(groups[name]),
                        tuple(sorted(r['input_tokens'] for r in groups[name] if r['success'])))
            for name in names]


def budget_table(groups: Groups, curves: Sequence[BudgetCurve]) -> Table:
    """Return each interface's final SR and the budget at which it reaches each other's."""
    rows = []
    for curve in curves:
        for other in curves:
            if other is curve:
                continue
            rows.append((label(curve.interface, groups[curve.interface]), curve.final_sr,
                         other.interface, other.final_sr, curve.budget_for(other.final_sr)))
    return Table('budget_reach', 'Input-token budget at which each interface reaches the '
                 "other's final SR",
                 ('interface', 'final SR', 'other', "other's final SR", 'budget (input tokens)'),
                 tuple(rows), ('', 'pct', '', 'pct', 'int'),
                 'Retrospective cutoff: an episode counts as solved under budget B when it '
                 'succeeded with at most B input tokens in all. n/a: never reached.')


def curve_table(curves: Sequence[BudgetCurve]) -> Table:
    """Return the curves as points (one row per budget where some SR steps)."""
    budgets = sorted({0, *(t for c in curves for t in c.solved_tokens)})
    rows = tuple((b, *(c.sr_at(b) for c in curves)) for b in budgets)
    return Table('sr_vs_budget', 'SR against the input-token budget (curve points)',
                 ('budget (input tokens)', *(c.interface for c in curves)), rows,
                 ('int', *('pct' for _ in curves)))


def pairs(names: Sequence[str]) -> list[tuple[str, str]]:
    """Return every ordered pair of ``names`` whose first comes earlier in the list."""
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]

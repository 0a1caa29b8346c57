"""
The progress line of an evaluation run: done/total, SR per interface, dollars, tokens, ETA.

``RunTally`` keeps the running numbers (testable on its own); ``EvalProgress`` shows them on
a tqdm bar, whose ETA counts only the episodes run in this process (resumed ones are its
``initial``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
import sys
from typing import Any, TextIO


@dataclass
class RunTally:
    """Running totals over finished records: per interface episodes and successes, $ and tokens."""

    episodes: dict[str, int] = field(default_factory=dict)
    solved: dict[str, int] = field(default_factory=dict)
    infra_errors: int = 0
    cost_usd: float = 0.0
    unpriced: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, record: dict[str, Any]) -> None:
        """Count one finished record."""
        name = record['interface']
        self.episodes[name] = self.episodes.get(name, 0) + 1
        self.solved[name] = self.solved.get(name, 0) + bool(record.get('success'))
        self.infra_errors += record.get('end_reason') == 'infra_error'
        cost = record.get('cost_usd')
        if cost is None:
            self.unpriced += 1
        else:
            self.cost_usd += cost
        self.input_tokens += record.get('input_tokens', 0)
        self.output_tokens += record.get('output_tokens', 0)

    def line(self) -> str:
        """Return the one-line summary shown after the bar."""
        rates = ' '.join(f'{name} {self.solved[name]}/{n} ({100 * self.solved[name] / n:.0f}%)'
                         for name, n in self.episodes.items())
        cost = f'${self.cost_usd:.4f}' + (f' (+{self.unpriced} unpriced)' if self.unpriced
                                          else '')
        infra = f' | infra {self.infra_errors}' if self.infra_errors else ''
        return (f'SR {rates} | {cost} | tok in {_short(self.input_tokens)} out '
                f'{_short(self.output_tokens)}{infra}')


def _short(count: int) -> str:
    if count >= 1_000_000:
        return f'{count / 1e6:.1f}M'
    if count >= 1_000:
        return f'{count / 1e3:.1f}k'
    return str(count)


class EvalProgress:
    """
    A tqdm bar over the run's episodes.

    :param total: episodes in the spec.
    :param finished: records already final (resumed); they count as done.
    :param enabled: draw the bar (off: nothing is printed).
    :param stream: where the bar goes (stderr by default).
    """

    def __init__(self, total: int, finished: Iterable[dict[str, Any]] = (), *,
                 enabled: bool = True, stream: TextIO | None = None) -> None:
        from tqdm import tqdm

        self.tally = RunTally()
        for record in finished:
            self.tally.add(record)
        done = sum(self.tally.episodes.values())
        self._bar = tqdm(total=total, initial=done, unit='ep', dynamic_ncols=True,
                         disable=not enabled, file=stream or sys.stderr, desc='pyrua eval')
        self._bar.set_postfix_str(self.tally.line(), refresh=False)

    def add(self, record: dict[str, Any]) -> None:
        """Count one finished record and redraw."""
        self.tally.add(record)
        self._bar.set_postfix_str(self.tally.line(), refresh=False)
        self._bar.update(1)

    def close(self) -> None:
        """Close the bar."""
        self._bar.close()

"""
Accounting per LLM call and per episode: tokens, images, latency, retries and cost.

Numbers come from the usage each response reports; cost comes from a price table (USD per
million tokens, per model). A model missing from the table has cost ``None`` and a note that
says so; a price is never guessed. Retries and infrastructure errors are ``InfraEvent``s,
never model calls.

The ``to_dict()`` keys ``llm_calls``, ``input_tokens``, ``cached_input_tokens``,
``output_tokens`` and ``cost_usd`` are a public contract of the episode JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
import importlib.resources
import os
from pathlib import Path
from typing import Any

import yaml

PRICE_FIELDS = ('input', 'cached_input', 'output')


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """USD per million tokens for one model (YAML keys ``input``, ``cached_input``, ``output``)."""

    input_per_m: float
    cached_input_per_m: float
    output_per_m: float

    def cost_usd(self, input_tokens: int, cached_input_tokens: int, output_tokens: int) -> float:
        """Return the cost of one call; cached input tokens are part of ``input_tokens``."""
        fresh = input_tokens - cached_input_tokens
        return (fresh * self.input_per_m + cached_input_tokens * self.cached_input_per_m
                + output_tokens * self.output_per_m) / 1e6


class PriceTable:
    """
    Prices per model, from the packaged ``prices.yaml`` and optionally a user file.

    A user file has the same shape (``models: {name: {input, cached_input, output}}``); its
    entries replace the packaged ones of the same name.
    """

    def __init__(self, prices: Mapping[str, ModelPrice], sources: tuple[str, ...]) -> None:
        self._prices = dict(prices)
        self.sources = sources

    def __repr__(self) -> str:
        return f'PriceTable({len(self._prices)} models from {", ".join(self.sources)})'

    @classmethod
    def load(cls, user_file: str | os.PathLike[str] | None = None) -> PriceTable:
        """
        Load the packaged table, then the user file over it.

        :param user_file: a YAML price file, or ``None`` for the packaged table only.
        :raises ValueError: for a malformed file, naming the entry and the field.
        """
        packaged = importlib.resources.files('pyrua_agent').joinpath('prices.yaml')
        prices = _parse(yaml.safe_load(packaged.read_text()), 'pyrua_agent/prices.yaml')
        sources = ('pyrua_agent/prices.yaml',)
        if user_file is not None:
            path = Path(user_file)
            prices.update(_parse(yaml.safe_load(path.read_text()), str(path)))
            sources += (str(path),)
        return cls(prices, sources)

    @property
    def models(self) -> tuple[str, ...]:
        """Return the priced model names, sorted."""
        return tuple(sorted(self._prices))

    def get(self, model: str) -> ModelPrice | None:
        """Return the price of ``model`` (exact name), or ``None`` when it is not listed."""
        return self._prices.get(model)

    def missing_note(self, model: str) -> str:
        """Return the note recorded when ``model`` has no price."""
        return (f'no price for model {model!r} in {", ".join(self.sources)}; cost_usd is null. '
                'Add it to a price file (models: {name: {input, cached_input, output}} in USD '
                'per million tokens) and pass that file')


def _parse(data: Any, source: str) -> dict[str, ModelPrice]:
    if not isinstance(data, dict) or not isinstance(data.get('models'), dict):
        raise ValueError(f'price file {source} has no "models:" mapping; see '
                         'pyrua_agent/prices.yaml for the shape')
    prices = {}
    for model, entry in data['models'].items():
        if not isinstance(entry, dict) or set(entry) != set(PRICE_FIELDS):
            keys = sorted(entry) if isinstance(entry, dict) else entry
            raise ValueError(f'price of {model!r} in {source} has {keys} vs '
                             f'{list(PRICE_FIELDS)}; give exactly those, USD per million tokens')
        for key in PRICE_FIELDS:
            value = entry[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f'price {model}.{key} in {source} is {value!r} vs a number '
                                 '>= 0; write USD per million tokens')
        prices[str(model)] = ModelPrice(*(float(entry[k]) for k in PRICE_FIELDS))
    return prices


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One counted model call: what the endpoint reported, images sent, latency and cost."""

    model: str
    input_tokens: int
    cached_input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    images_sent: int
    latency_s: float
    retries: int
    cost_usd: float | None

    def __repr__(self) -> str:
        cost = 'n/a' if self.cost_usd is None else f'${self.cost_usd:.4f}'
        return (f'CallRecord(in={self.input_tokens} (cached {self.cached_input_tokens}), '
                f'out={self.output_tokens}, images={self.images_sent}, '
                f'{self.latency_s:.2f} s, retries={self.retries}, {cost})')

    def to_dict(self) -> dict[str, Any]:
        """Return the record as plain JSON types."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class InfraEvent:
    """A failed attempt, never a model call: a 429/5xx answer, a timeout, a connection error."""

    kind: str
    detail: str
    status: int | None
    wait_s: float

    def __repr__(self) -> str:
        status = '' if self.status is None else f' {self.status}'
        return f'InfraEvent({self.kind}{status}, wait {self.wait_s:.2f} s, {self.detail[:60]!r})'

    def to_dict(self) -> dict[str, Any]:
        """Return the event as plain JSON types."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """Episode totals over the counted calls; ``cost_usd`` is ``None`` if any call is unpriced."""

    llm_calls: int
    input_tokens: int
    cached_input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    images_sent: int
    latency_s: float
    infra_events: int
    cost_usd: float | None
    cost_note: str

    def __repr__(self) -> str:
        cost = 'n/a' if self.cost_usd is None else f'${self.cost_usd:.4f}'
        return (f'UsageTotals(calls={self.llm_calls}, in={self.input_tokens} '
                f'(cached {self.cached_input_tokens}), out={self.output_tokens}, '
                f'images={self.images_sent}, infra={self.infra_events}, {cost})')


class Ledger:
    """The running account of one episode: counted calls and infrastructure events, in order."""

    def __init__(self) -> None:
        self._calls: list[CallRecord] = []
        self._events: list[InfraEvent] = []
        self._notes: list[str] = []

    def __repr__(self) -> str:
        return f'Ledger({self.totals()!r})'

    @property
    def calls(self) -> tuple[CallRecord, ...]:
        """Return the counted calls in order."""
        return tuple(self._calls)

    @property
    def infra_events(self) -> tuple[InfraEvent, ...]:
        """Return the infrastructure events in order."""
        return tuple(self._events)

    def add_call(self, record: CallRecord, note: str = '') -> None:
        """Count one model call; ``note`` (e.g. a missing price) is kept once."""
        self._calls.append(record)
        if note and note not in self._notes:
            self._notes.append(note)

    def add_infra(self, event: InfraEvent) -> None:
        """Record one failed attempt; it is never counted as a model call."""
        self._events.append(event)

    def totals(self) -> UsageTotals:
        """Return the totals over the calls so far."""
        calls = self._calls
        costs = [c.cost_usd for c in calls]
        return UsageTotals(
            llm_calls=len(calls),
            input_tokens=sum(c.input_tokens for c in calls),
            cached_input_tokens=sum(c.cached_input_tokens for c in calls),
            output_tokens=sum(c.output_tokens for c in calls),
            reasoning_tokens=sum(c.reasoning_tokens for c in calls),
            images_sent=sum(c.images_sent for c in calls),
            latency_s=sum(c.latency_s for c in calls),
            infra_events=len(self._events),
            cost_usd=None if None in costs else sum(costs, 0.0),
            cost_note='; '.join(self._notes),
        )

    def progress(self) -> str:
        """Return the one-line progress a person watching sees after each call."""
        t = self.totals()
        cost = 'cost n/a' if t.cost_usd is None else f'${t.cost_usd:.4f}'
        last = self._calls[-1] if self._calls else None
        this = (f'this call in {last.input_tokens:,} (cached {last.cached_input_tokens:,}) '
                f'out {last.output_tokens:,} {last.latency_s:.1f} s | ') if last else ''
        return (f'call {t.llm_calls}: {this}total in {t.input_tokens:,} out '
                f'{t.output_tokens:,} tokens, {cost}, {t.infra_events} retries/infra events')

    def to_dict(self) -> dict[str, Any]:
        """Return totals, the per-call log and the infrastructure events for the episode JSON."""
        return {**asdict(self.totals()),
                'calls': [c.to_dict() for c in self._calls],
                'infra': [e.to_dict() for e in self._events]}

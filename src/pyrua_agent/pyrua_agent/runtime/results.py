"""What a cell returns: text for the model, images, and a record of the primitive calls."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

STOP_REASONS = ('task_complete', 'cell_timeout', 'episode_cancelled', 'worker_died')


@dataclass(frozen=True, slots=True)
class ImageObservation:
    """
    One picture a cell asked for with ``robo.show``.

    ``index`` is 1-based within the cell; ``offset`` is where its placeholder
    (``[image 1: head — note]``) starts in ``CellResult.output``.
    """

    camera: str
    note: str
    pixels: np.ndarray
    index: int
    offset: int

    def __repr__(self) -> str:
        h, w = self.pixels.shape[:2]
        note = f', note={self.note[:40]!r}' if self.note else ''
        return (f'ImageObservation(index={self.index}, camera={self.camera!r}, {w}x{h} px'
                f'{note}, offset={self.offset})')


@dataclass(frozen=True, slots=True)
class PrimitiveCall:
    """One primitive goal a cell ran: arguments, result repr and timing (s from cell start)."""

    name: str
    args: tuple
    kwargs: dict[str, Any]
    result_repr: str
    started_s: float
    duration_s: float

    def __repr__(self) -> str:
        return (f'PrimitiveCall({self.name}, at {self.started_s:.3f} s, '
                f'{self.duration_s * 1e3:.1f} ms -> {self.result_repr[:50]})')


@dataclass(frozen=True, slots=True)
class CellResult:
    """
    The outcome of one cell.

    ``output`` is exactly what the model reads. ``error`` is the type name of the uncaught
    exception (None if none). ``stopped_reason`` is None or one of ``STOP_REASONS``.
    ``namespace_lost`` is True when the worker had to be replaced and the variables are gone.
    """

    index: int
    output: str
    images: tuple[ImageObservation, ...]
    error: str | None
    stopped_reason: str | None
    duration_s: float
    namespace_lost: bool
    calls: tuple[PrimitiveCall, ...]

    @property
    def ok(self) -> bool:
        """Return True if the cell ran to its end without an error or a stop."""
        return self.error is None and self.stopped_reason is None

    def __repr__(self) -> str:
        state = 'ok' if self.ok else (self.stopped_reason or f'error={self.error}')
        lost = ', namespace lost' if self.namespace_lost else ''
        return (f'CellResult(cell {self.index}, {state}, {self.duration_s:.3f} s, '
                f'{len(self.output)} chars, {len(self.images)} images, '
                f'{len(self.calls)} calls{lost})')

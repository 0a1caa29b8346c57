"""
The segmenter interface and its registry of backends.

A segmenter turns one camera frame and a query into instance masks. Backends register
themselves where they are defined: ``color`` (classical OpenCV, the default), ``sam3``
(transformers, optional extra) and ``oracle`` (simulator ground truth: privileged, refused
unless explicitly enabled, never a default; DESIGN.md rule 4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from .query import ObjectQuery
from ..naming import unknown_name
from ..station import CameraFrame

DEFAULT_SEGMENTER = 'color'


class UnsupportedQuery(ValueError):
    """A backend cannot look for this kind of object; ``locate`` reports it as not found."""


@dataclass(frozen=True, slots=True)
class Detection:
    """One instance found in one image: a boolean H x W mask, a score in 0..1, a label."""

    mask: np.ndarray
    score: float
    label: str

    @property
    def pixels(self) -> int:
        """Return the number of mask pixels."""
        return int(np.count_nonzero(self.mask))

    def __repr__(self) -> str:
        return f'Detection({self.label!r}, {self.pixels} px, score={self.score:.2f})'


@runtime_checkable
class Segmenter(Protocol):
    """Finds the instances that match a query in one camera frame."""

    name: str

    def segment(self, frame: CameraFrame, query: ObjectQuery) -> list[Detection]:
        """
        Return every instance of ``query`` in ``frame``, best first (empty when none).

        :param frame: the captured image; a backend reads ``frame.rgb`` (the oracle also
            reads ``frame.camera`` to render the matching ground truth).
        :param query: the parsed query.
        :raises UnsupportedQuery: when the backend cannot look for this noun at all.
        """
        ...


SEGMENTERS: dict[str, Callable[..., Segmenter]] = {}


def register_segmenter(name: str) -> Callable[[type], type]:
    """
    Register a segmenter class under ``name`` (used as a class decorator).

    :raises ValueError: when ``name`` is already registered.
    """

    def decorate(cls: type) -> type:
        if name in SEGMENTERS:
            raise ValueError(f'segmenter {name!r} is registered twice; rename one of them')
        SEGMENTERS[name] = cls
        return cls

    return decorate


def make_segmenter(name: str = DEFAULT_SEGMENTER, **options: object) -> Segmenter:
    """
    Build the registered segmenter ``name`` with its options.

    :param name: ``'color'``, ``'sam3'`` or ``'oracle'``.
    :param options: passed to the backend (``checkpoint_path`` for sam3; ``provider`` and
        ``allow_privileged=True`` for oracle).
    :raises ValueError: for an unknown name, listing the registered ones.
    """
    if name not in SEGMENTERS:
        raise ValueError(unknown_name('segmenter', name, SEGMENTERS))
    return SEGMENTERS[name](**options)

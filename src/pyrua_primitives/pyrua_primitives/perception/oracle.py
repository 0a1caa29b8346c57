"""
The ``oracle`` segmenter: simulator ground-truth masks. PRIVILEGED (DESIGN.md rule 4).

It never runs by default: building it without ``allow_privileged=True`` is refused. The
masks come from a provider the caller injects (the evaluator side, e.g. a function that
renders MuJoCo's segmentation buffer); this package holds no simulator access. Use it to
debug geometry apart from segmentation, never to measure an agent.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .query import ObjectQuery
from .segmenter import Detection, register_segmenter
from ..errors import PrimitiveError
from ..station import CameraFrame

MaskProvider = Callable[[CameraFrame, ObjectQuery], list[np.ndarray]]
"""Returns one boolean H x W mask per ground-truth instance matching the query."""


class PrivilegedRefused(PrimitiveError, PermissionError):
    """A privileged component was requested without explicitly allowing it."""


@register_segmenter('oracle')
class PrivilegedOracleSegmenter:
    """Ground-truth masks from an injected provider; refused unless explicitly allowed."""

    name = 'oracle'

    def __init__(self, provider: MaskProvider | None = None, allow_privileged: bool = False):
        """
        Wrap ``provider`` as a segmenter.

        :param provider: ``provider(frame, query) -> [mask, ...]`` from the evaluator side.
        :param allow_privileged: must be True: ground truth is not what a real station has.
        :raises PrivilegedRefused: when ``allow_privileged`` is not True.
        :raises TypeError: when ``provider`` is not callable.
        """
        if allow_privileged is not True:
            raise PrivilegedRefused(
                f'oracle segmenter allow_privileged={allow_privileged!r} vs True; it reads '
                'simulator ground truth (debugging only): pass allow_privileged=True, or use '
                "'color'"
            )
        if not callable(provider):
            raise TypeError(
                f'oracle provider {provider!r} is not callable; pass provider(frame, query) '
                '-> list of boolean masks (the evaluator renders them)'
            )
        self._provider = provider

    def segment(self, frame: CameraFrame, query: ObjectQuery) -> list[Detection]:
        """
        Return the provider's masks for ``query`` in ``frame``, largest first.

        :raises ValueError: when a mask's shape differs from the image's.
        """
        shape = frame.rgb.shape[:2]
        found = []
        for mask in self._provider(frame, query):
            mask = np.asarray(mask, dtype=bool)
            if mask.shape != shape:
                raise ValueError(
                    f'oracle mask shape {mask.shape} vs image {shape} of {frame.camera!r}; '
                    'render the segmentation at the frame size'
                )
            if mask.any():
                found.append(Detection(mask=mask, score=1.0, label=f'oracle {query.phrase}'))
        found.sort(key=lambda d: -d.pixels)
        return found

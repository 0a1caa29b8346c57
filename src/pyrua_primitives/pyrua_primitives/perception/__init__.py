"""
RGB-first perception: segmenters, query parsing, ``locate`` geometry, back-projection.

Importing this package registers the ``color``, ``oracle`` and ``sam3`` segmenters; ``sam3``
imports torch and transformers only when built.
"""

from . import color, oracle, sam3  # noqa: F401  (each registers its segmenter)
from .locate import locate, locate_all, LocateResult
from .projection import back_project, BackProjectResult, camera_meta, CameraMeta, depth_point
from .query import COLOURS, NOUNS, ObjectQuery, parse_query
from .segmenter import (
    DEFAULT_SEGMENTER,
    Detection,
    make_segmenter,
    register_segmenter,
    Segmenter,
    SEGMENTERS,
    UnsupportedQuery,
)

__all__ = [
    'BackProjectResult',
    'COLOURS',
    'CameraMeta',
    'DEFAULT_SEGMENTER',
    'Detection',
    'LocateResult',
    'NOUNS',
    'ObjectQuery',
    'SEGMENTERS',
    'Segmenter',
    'UnsupportedQuery',
    'back_project',
    'camera_meta',
    'depth_point',
    'locate',
    'locate_all',
    'make_segmenter',
    'parse_query',
    'register_segmenter',
]

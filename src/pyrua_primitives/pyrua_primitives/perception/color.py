"""
The ``color`` segmenter: classical OpenCV colour thresholds and simple shape tests.

Each pixel takes the colour name whose shading model (base colour times light, clipped,
plus specular white) is nearest, or none for greys and beige; a query's instances are the
connected components of its colour, holes filled. Crosses (``marker``)
are told from solid outlines by solidity. Limits: it sees only the six coloured materials,
not white or grey fixtures (``hole``), and it cannot separate two touching objects of one
colour.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from .query import COLOURS, ObjectQuery
from .segmenter import Detection, register_segmenter, UnsupportedQuery
from ..station import CameraFrame

MIN_SATURATION = 0.45
MIN_VALUE = 0.12
MIN_PIXELS = 25
CROSS_SOLIDITY = 0.75
"""Below this solidity (area / convex hull area) an outline is a cross, above it solid."""
MAX_MODEL_DISTANCE = 0.12
"""A pixel farther than this (RGB in 0..1) from every shading model is left unlabelled."""
_GAINS = np.linspace(0.12, 1.8, 43)
"""Light gains: above about 1.8, clipped orange and clipped yellow become one colour."""
_SPECULAR = np.linspace(0.0, 0.45, 10)
_NEUTRAL_TINTS = ((1.0, 1.0, 1.0), (1.0, 0.93, 0.82), (1.0, 0.88, 0.62), (0.9, 0.95, 1.0))
"""Greys, beige and wood tables, cool whites: what a low-saturation surface looks like."""
_LEVELS = 32
MIN_YELLOW_GREEN_RED = 0.85
"""A pixel whose green is at least this fraction of its red is yellow, never orange.

Near (255, 255, 60) a clipped yellow highlight and an orange face with much specular white
are equally near their models; on the twin orange pixels keep G/R <= 0.77 (99th percentile
over head and wrist views) and yellow ones G/R >= 0.89, so the ratio decides."""


def _shading_models() -> tuple[np.ndarray, np.ndarray]:
    """Return candidate rendered colours (N x 3, 0..1) and their labels (-1 = neutral)."""
    colours, labels = [], []
    for index, name in enumerate(sorted(COLOURS)):
        base = np.array(COLOURS[name])
        shaded = base[None, None, :] * _GAINS[:, None, None] + _SPECULAR[None, :, None]
        colours.append(np.clip(shaded, 0.0, 1.0).reshape(-1, 3))
        labels.append(np.full(len(_GAINS) * len(_SPECULAR), index))
    for tint in _NEUTRAL_TINTS:
        levels = np.linspace(0.0, 1.4, 120)[:, None]
        colours.append(np.clip(np.array(tint)[None, :] * levels, 0.0, 1.0))
        labels.append(np.full(len(levels), -1))
    return np.concatenate(colours), np.concatenate(labels)


@functools.cache
def _lookup_table() -> np.ndarray:
    """Label every colour of a 32-level RGB cube by its nearest shading model (built once)."""
    models, labels = _shading_models()
    step = 256 // _LEVELS
    centres = (np.arange(_LEVELS) * step + step / 2) / 255.0
    cube = np.stack(np.meshgrid(centres, centres, centres, indexing='ij'), -1).reshape(-1, 3)
    table = np.empty(len(cube), np.int8)
    models_sq = (models**2).sum(axis=1)
    for start in range(0, len(cube), 4096):
        chunk = cube[start:start + 4096]
        # |a - b|^2 = |a|^2 + |b|^2 - 2 a.b, as one matrix product per chunk.
        dist = (chunk**2).sum(axis=1)[:, None] + models_sq[None, :] - 2.0 * chunk @ models.T
        nearest = np.argmin(dist, axis=1)
        near_enough = dist[np.arange(len(chunk)), nearest] <= MAX_MODEL_DISTANCE**2
        table[start:start + 4096] = np.where(near_enough, labels[nearest], -1)
    return table.reshape(_LEVELS, _LEVELS, _LEVELS)


def colour_labels(rgb: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """
    Label each pixel with the index of its colour name, or -1 for neutral surfaces.

    Pixels below ``MIN_SATURATION`` or ``MIN_VALUE`` (HSV) are neutral whatever their hue.
    Each colour is modelled as it renders: the base RGB times a light gain (0.12 to 1.8,
    clipped at 1) plus a white specular part; a pixel takes the label of the nearest model.
    Clipping matters: a brightly lit orange face renders near (255, 193, 42), whose hue is
    closer to yellow's than to orange's; a clipped yellow highlight near (255, 255, 60) is as
    near orange's model as yellow's, so green >= ``MIN_YELLOW_GREEN_RED`` x red is yellow.

    :param rgb: H x W x 3 uint8 image.
    :returns: (H x W int8 labels, the colour names in label order).
    """
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    q = rgb // (256 // _LEVELS)
    labels = _lookup_table()[q[..., 0], q[..., 1], q[..., 2]]
    # Tables, wood and their shadows stay below this saturation; object faces do not.
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)
    vivid = (hsv[..., 1] >= MIN_SATURATION * 255) & (hsv[..., 2] >= MIN_VALUE * 255)
    labels[~vivid] = -1
    names = tuple(sorted(COLOURS))
    red, green = rgb[..., 0].astype(np.float32), rgb[..., 1].astype(np.float32)
    yellowish = (labels == names.index('orange')) & (green >= MIN_YELLOW_GREEN_RED * red)
    labels[yellowish] = names.index('yellow')
    return labels, names


def _components(mask: np.ndarray) -> list[np.ndarray]:
    kernel = np.ones((3, 3), np.uint8)
    cleaned = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, kernel)
    contours, _ = cv2.findContours(cleaned, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = []
    for contour in contours:
        filled = np.zeros_like(cleaned)
        cv2.drawContours(filled, [contour], -1, 1, thickness=cv2.FILLED)
        if np.count_nonzero(filled) >= MIN_PIXELS:
            out.append(filled.astype(bool))
    return out


def solidity(mask: np.ndarray) -> float:
    """Return mask area / convex hull area (1 for convex outlines, about 0.5 for a cross)."""
    points = cv2.findNonZero(mask.astype(np.uint8))
    hull = cv2.convexHull(points)
    hull_mask = np.zeros(mask.shape, np.uint8)
    cv2.fillConvexPoly(hull_mask, hull, 1)
    return float(np.count_nonzero(mask)) / max(1, int(np.count_nonzero(hull_mask)))


@register_segmenter('color')
class ColorSegmenter:
    """Colour-name thresholds in HSV plus a cross/solid shape test; CPU only, no model."""

    name = 'color'

    def segment(self, frame: CameraFrame, query: ObjectQuery) -> list[Detection]:
        """
        Return the connected components of the query's colour, largest first.

        :param frame: the captured image (``frame.rgb`` is read).
        :param query: the parsed query; without a colour every colour is searched.
        :raises UnsupportedQuery: for uncoloured nouns (``hole``).
        """
        if not query.shape.coloured:
            raise UnsupportedQuery(
                f'the color segmenter sees only coloured objects vs uncoloured {query.noun!r} '
                '(the segmenter is chosen when the episode starts, not in a cell); find it '
                'yourself: its pixels in robo.image(camera) (a cell can import cv2), then '
                'robo.back_project(camera, u, v, z) for where they are'
            )
        labels, names = colour_labels(frame.rgb)
        colours = (query.colour,) if query.colour else names
        found = []
        for colour in colours:
            for mask in _components(labels == names.index(colour)):
                is_cross = solidity(mask) < CROSS_SOLIDITY
                if is_cross != (query.shape.outline == 'cross'):
                    continue
                found.append(Detection(mask=mask, score=1.0, label=f'{colour} {query.noun}'))
        found.sort(key=lambda d: -d.pixels)
        return found

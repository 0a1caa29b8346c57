"""
``locate``: find one queried object in camera frames and measure it from masks.

RGB only by default. The primary camera is ``head`` when it sees the object, else the
first other frame that does: its mask bounds the footprint on the table plane. Every other
frame whose mask overlaps that bound joins a visual hull that settles the height (see
``footprint``). Frames with depth use the depth pixels under the mask instead. Flat things
(a marker, a zone: at most ``FLAT_M`` high) have no height to measure: their mask on the
table plane is their footprint from any view, so the view that sees most of them is used
and the height is reported as ``'flat'``. Nothing here reads ground truth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
import math

import numpy as np

from .footprint import depth_estimate, depth_points, hull_estimate, HullEstimate, pair_consistency
from .projection import pixel_rays, project_points
from .query import COLOURS, NounShape, ObjectQuery, parse_query
from .segmenter import Detection, Segmenter, UnsupportedQuery
from ..results import heading_text
from ..station import CameraFrame, CameraModel

PROBE_RAYS = 9
PROBE_STEPS = 40
MIN_OVERLAP = 5
"""Probe points (on primary rays through the mask) another mask must cover to join."""
MIN_PAIR_IOU = 0.8
"""Worst-view IoU of the best two-view hull below which another mask is not the object."""
FLAT_M = 0.005
"""Nouns at most this high are flat: measured on the table plane, height taken as nominal."""


BOUNDS_M: dict[str, tuple[float, float, float | None]] = {
    'rgb_hull': (0.004, 0.004, 0.004),
    'depth': (0.003, 0.003, 0.003),
    'flat': (0.007, 0.007, 0.002),
    'none': (0.03, 0.03, None),
    'none_wide': (0.045, 0.035, None),
}
"""Per-axis error bound (x, y, z), metres, by ``height_source``: calibrated on the twin by
``benchmarks/bench_locate.py`` so that each holds on every axis at once for at least 90 % of
the estimates of that kind (blocks, bowls, pegs, buttons alike), on seeds 0 and 1. A single
view (``'none'``) places the centre by the mask's footprint on the table: off by up to 3 cm
(4.5 cm for nouns wider than ``WIDE_M``, a bowl: ``'none_wide'``)."""
WIDE_M = 0.08
MASK_EDGE_M = 0.005
"""Added to a one-view region's geometric bound: a mask's edge pixels and shaded faces
(measured on the twin: two touching blocks seen as one region by the head)."""


@dataclass(frozen=True, slots=True)
class LocateResult:
    """
    One located object, or why none was.

    Unknown values are None, never NaN: a not-found result has ``position_m=None``; a found
    one whose height was not measured has ``position_m=(x, y, None)`` and ``height_m``,
    ``top_z_m`` None. ``size_m`` is the footprint (w, d); with a single view and no depth
    it is an upper bound (the mask on the table plane). ``heading_rad`` is the yaw of the
    side of length w (see ``footprint.fit_footprint``). ``height_source`` says how it was
    measured: ``'depth'``, ``'rgb_hull'`` (two or more views), ``'flat'`` (a flat noun on
    the table plane; height_m is its nominal thickness) or ``'none'`` (one view: no height).
    ``bound_m`` is the per-axis error bound (x, y, z) that held for 90 % of such estimates
    on the twin (``BOUNDS_M``); with one view it is widened to what a region larger than
    the noun allows (``_one_view_bound``: two touching blocks seen as one), and the note
    says so. ``note`` says why no wrist view measured the height.
    ``colour`` is the colour the segmenter saw ('' when it names none), also for a query
    without one (``locate_all('block')``). A button's cap is fitted above its base, 30 mm up
    (``query.NOUNS``).
    """

    found: bool
    reason: str
    query: str = ''
    position_m: tuple[float, float, float | None] | None = None
    size_m: tuple[float, float] | None = None
    height_m: float | None = None
    top_z_m: float | None = None
    heading_rad: float | None = None
    cameras: tuple[str, ...] = ()
    pixels: tuple[int, ...] = ()
    """Mask pixels per camera in ``cameras``."""
    height_source: str = 'none'
    bound_m: tuple[float, float, float | None] | None = None
    note: str = ''
    colour: str = ''

    def __repr__(self) -> str:
        if not self.found:
            return f'LocateResult(found=False, reason={self.reason!r})'
        x, y, z = self.position_m
        w, d = (v * 1000 for v in self.size_m)
        bound = [round(b * 1000) for b in self.bound_m or () if b is not None]
        bound = f" +-({', '.join(map(str, bound))}) mm" if bound else ''
        if self.height_m is None:
            where = (f'({x:.3f}, {y:.3f}, None) m{bound}, within {w:.0f}x{d:.0f} mm, height not '
                     'measured')
        else:
            where = (f'({x:.3f}, {y:.3f}, {z:.3f}) m{bound}, '
                     f'{w:.0f}x{d:.0f}x{self.height_m * 1000:.0f} mm')
        note = f', note={self.note!r}' if self.note else ''
        seen = f' ({self.colour})' if self.colour and self.colour not in self.query else ''
        return (
            f'LocateResult(found, {self.query!r}{seen} at {where}, '
            f'{heading_text(self.heading_rad)}, '
            f"{'+'.join(self.cameras)}{note})"
        )


@dataclass(frozen=True, slots=True)
class _Candidate:
    estimate: HullEstimate
    cameras: tuple[str, ...]
    pixels: tuple[int, ...]
    source: str
    top_z_m: float | None
    note: str = ''
    colour: str = ''


def _not_found(query: str, reason: str) -> LocateResult:
    return LocateResult(found=False, reason=reason, query=query)


def _mm(size_m: Sequence[float]) -> str:
    return 'x'.join(f'{v * 1000:.0f}' for v in size_m)


def _matches_shape(est: HullEstimate, shape: NounShape) -> str:
    """Return '' when the measurement fits the noun, else what does not fit."""
    measured = not math.isnan(est.height_m)
    shortest, longest = min(est.footprint.size_m), max(est.footprint.size_m)
    if not math.isnan(est.footprint.narrowest_m):
        shortest = min(shortest, est.footprint.narrowest_m)
    # A single view only bounds the footprint: it grows away from the camera with height.
    slack = 0.0 if measured else 1.5 * shape.height_m + 0.01
    low = 0.6 * min(shape.width_m, shape.depth_m)
    high = 1.4 * max(shape.width_m, shape.depth_m) + slack
    if not (shortest >= low and longest <= high):
        narrow = est.footprint.narrowest_m
        # A round outline cut by an occluder is a crescent: its enclosing circle is nearly
        # whole, its narrowest width is what fails; say so (not only the circle's size).
        cut = (f' (narrowest {narrow * 1000:.0f} mm vs at least {low * 1000:.0f} mm: partly '
               'hidden?)' if not math.isnan(narrow) and narrow < low
               and min(est.footprint.size_m) >= low else '')
        return f'footprint {_mm(est.footprint.size_m)} mm{cut}'
    if measured and abs(est.height_m - shape.height_m) > 0.5 * shape.height_m + 0.01:
        return f'height {est.height_m * 1000:.0f} mm'
    return ''


def _probe_points(frame: CameraFrame, det: Detection, table_z_m: float) -> np.ndarray:
    """Return points along the rays of a few mask pixels, from the table up to 0.2 m."""
    rows, cols = np.nonzero(det.mask)
    picks = np.linspace(0, len(rows) - 1, PROBE_RAYS).astype(int)
    origin = frame.model.position_m
    dirs = pixel_rays(frame.model, cols[picks], rows[picks])
    heights = table_z_m + np.linspace(0.0, 0.2, PROBE_STEPS)
    with np.errstate(divide='ignore', invalid='ignore'):
        t = (heights[None, :] - origin[2]) / dirs[:, 2:3]
    points = origin + dirs[:, None, :] * t[..., None]
    return points[np.isfinite(t) & (t > 0)]


def _overlapping(frame: CameraFrame, detections: list[Detection], probe: np.ndarray,
                 primary: tuple[CameraModel, np.ndarray], bottom_z: float) -> Detection | str:
    """
    Return the detection in ``frame`` that shows the primary object, or why none does.

    Candidates must cover some probe points (rays through the primary mask); the one whose
    two-view hull best explains both masks wins, if its IoU reaches ``MIN_PAIR_IOU``.
    """
    if not detections:
        return 'does not see it'
    uv, front = project_points(frame.model, probe)
    h, w = frame.rgb.shape[:2]
    col, row = np.floor(uv[:, 0] + 0.5).astype(int), np.floor(uv[:, 1] + 0.5).astype(int)
    ok = front & (col >= 0) & (col < w) & (row >= 0) & (row < h)
    best, best_iou, why = None, MIN_PAIR_IOU, 'sees others like it, not this one'
    for det in detections:
        if int(np.count_nonzero(det.mask[row[ok], col[ok]])) < MIN_OVERLAP:
            continue
        iou = pair_consistency([primary, (frame.model, det.mask)], bottom_z)
        if iou > best_iou:
            best, best_iou = det, iou
        else:
            why = (f'view disagrees with the first (IoU {iou:.2f} vs {MIN_PAIR_IOU}: cut by '
                   'the image border, partly hidden, or from too alike a direction)')
    return why if best is None else best


def _touches_border(mask: np.ndarray) -> bool:
    """Return True when the mask reaches the edge of the image (the object may go on)."""
    return bool(mask[0].any() or mask[-1].any() or mask[:, 0].any() or mask[:, -1].any())


def _measure_flat(frame: CameraFrame, det: Detection, table_z_m: float,
                  shape: NounShape) -> _Candidate | None:
    """Measure a flat object on the plane of its top surface (no height to find)."""
    top_z = table_z_m + shape.height_m
    est = hull_estimate([(frame.model, det.mask)], top_z, shape.outline)
    if est is None:
        return None
    est = replace(est, height_m=shape.height_m)
    return _Candidate(est, (frame.camera,), (det.pixels,), 'flat', top_z)


def _colour(det: Detection, query: ObjectQuery) -> str:
    """Return the colour a detection's label names, else the query's ('' for neither)."""
    named = [w for w in det.label.split() if w in COLOURS]
    return named[0] if named else query.colour


def _measure(primary: tuple[CameraFrame, Detection], others: list[tuple[CameraFrame, Detection]],
             table_z_m: float, query: ObjectQuery) -> _Candidate | None:
    cand = _measure_shape(primary, others, table_z_m, query.shape)
    return cand and replace(cand, colour=_colour(primary[1], query))


def _measure_shape(primary: tuple[CameraFrame, Detection],
                   others: list[tuple[CameraFrame, Detection]],
                   table_z_m: float, shape: NounShape) -> _Candidate | None:
    frame, det = primary
    if shape.height_m <= FLAT_M:
        return _measure_flat(frame, det, table_z_m, shape)
    bottom_z = table_z_m + shape.base_m
    bound = hull_estimate([(frame.model, det.mask)], bottom_z, shape.outline)
    if bound is None:
        return None
    probe = _probe_points(frame, det, bottom_z)
    support, why = [(frame, det)], []
    for other, detections in others:
        match = _overlapping(other, detections, probe, (frame.model, det.mask), bottom_z)
        if isinstance(match, str):
            why.append(f'{other.camera} {match}')
        else:
            support.append((other, match))
    cameras = tuple(f.camera for f, _ in support)
    pixels = tuple(d.pixels for _, d in support)
    with_depth = [(f, d) for f, d in support if f.depth_m is not None]
    if with_depth:
        points = np.concatenate([depth_points(f.model, f.depth_m, d.mask) for f, d in with_depth])
        est = depth_estimate(points, table_z_m, shape.outline, shape.base_m)
        if est is not None:
            return _Candidate(est, cameras, pixels, 'depth', table_z_m + est.height_m)
    if len(support) > 1:
        est = hull_estimate([(f.model, d.mask) for f, d in support], bottom_z, shape.outline)
        if est is not None and not math.isnan(est.height_m):
            est = replace(est, height_m=est.height_m + shape.base_m)
            return _Candidate(est, cameras, pixels, 'rgb_hull', table_z_m + est.height_m)
        why.append(f'{"+".join(cameras)} look from too alike directions')
    if not others:
        why.append(f'only {frame.camera} looked')
    note = '; '.join(why)
    return _Candidate(bound, cameras[:1], pixels[:1], 'none', None, note)


def _pick(candidates: list[_Candidate], query: ObjectQuery) -> _Candidate | str:
    if len(candidates) == 1:
        return candidates[0]
    xy = np.array([c.estimate.footprint.center_xy_m for c in candidates])
    if query.qualifier == 'leftmost':
        return candidates[int(np.argmin(xy[:, 0]))]
    if query.qualifier == 'rightmost':
        return candidates[int(np.argmax(xy[:, 0]))]
    if query.qualifier == 'nearest':
        return candidates[int(np.argmin(xy[:, 1]))]
    where = ', '.join(f'({x:.3f}, {y:.3f})' for x, y in xy)
    return (
        f'{len(candidates)} objects match {query.phrase!r}, at {where} m; add a qualifier '
        "('leftmost', 'rightmost', 'nearest') or a colour"
    )


def locate(
    frames: Sequence[CameraFrame], query: str, segmenter: Segmenter, table_z_m: float
) -> LocateResult:
    """
    Find the object named by ``query`` in ``frames`` and measure it.

    :param frames: captured frames; the ``head`` frame (else the first) is primary and
        must see the object; other frames help where their mask overlaps it.
    :param query: ``'[leftmost|rightmost|nearest] [colour] <noun>'``, e.g. ``'red block'``;
        leftmost/rightmost = smallest/largest world x, nearest = smallest y (arm side).
    :param segmenter: the backend that finds masks (``make_segmenter('color')``).
    :param table_z_m: table-top height in the world frame, metres.
    :returns: a found LocateResult, or ``found=False`` with the reason: unknown words
        (with the vocabulary), nothing seen, several matches, or measurements that do not
        fit the noun. Never a guessed position.
    :raises ValueError: when ``frames`` is empty.
    """
    found = _find(frames, query, segmenter, table_z_m)
    if isinstance(found, LocateResult):
        return found
    candidates, parsed = found
    chosen = _pick(candidates, parsed)
    if isinstance(chosen, str):
        return _not_found(query, chosen)
    return _result(query, chosen, parsed.shape, table_z_m)


def locate_all(
    frames: Sequence[CameraFrame], query: str, segmenter: Segmenter, table_z_m: float
) -> list[LocateResult]:
    """
    Return every object that matches ``query``, left to right (smallest world x first).

    The arguments are those of ``locate``; a qualifier in the query is ignored. An empty
    list means nothing matched (``locate`` says why).
    """
    found = _find(frames, query, segmenter, table_z_m)
    if isinstance(found, LocateResult):
        return []
    candidates, parsed = found
    candidates.sort(key=lambda c: c.estimate.footprint.center_xy_m[0])
    return [_result(query, c, parsed.shape, table_z_m) for c in candidates]


def _find(
    frames: Sequence[CameraFrame], query: str, segmenter: Segmenter, table_z_m: float
) -> tuple[list[_Candidate], ObjectQuery] | LocateResult:
    """Return the candidates that fit the noun, or a not-found result (see ``locate``)."""
    if not frames:
        raise ValueError('frames has 0 frames vs at least 1; capture the head camera first')
    parsed = parse_query(query)
    if isinstance(parsed, str):
        return _not_found(query, parsed)
    ordered = sorted(frames, key=lambda f: f.camera != 'head')
    try:
        found = [(f, segmenter.segment(f, parsed)) for f in ordered]
    except UnsupportedQuery as exc:
        return _not_found(query, str(exc))
    names = ', '.join(f.camera for f in ordered)
    looked = f'{len(ordered)} camera{"s" if len(ordered) > 1 else ""} looked'
    seeing = [k for k, (_, dets) in enumerate(found) if dets]
    if not seeing:
        return _not_found(query, f'no {parsed.phrase!r} in {names} ({looked})')
    first = seeing[0]
    if parsed.shape.height_m <= FLAT_M:
        # The sharpest view of a flat thing is the one that sees most of it whole: a mask cut
        # by the image border is a truncated footprint, so such views come last.
        def whole_pixels(k: int) -> tuple[bool, int]:
            best = max(found[k][1], key=lambda d: d.pixels)
            return (not _touches_border(best.mask), best.pixels)

        first = max(seeing, key=whole_pixels)
    primary_frame, primary_dets = found[first]
    found = [found[first]] + found[:first] + found[first + 1:]
    candidates, misfits = [], []
    for det in primary_dets:
        cand = _measure((primary_frame, det), found[1:], table_z_m, parsed)
        if cand is None:
            continue
        misfit = _matches_shape(cand.estimate, parsed.shape)
        if misfit:
            misfits.append(misfit)
        else:
            candidates.append(cand)
    if not candidates:
        shape = parsed.shape
        nominal = _mm((shape.width_m, shape.depth_m, shape.height_m))
        more = f'; and {len(misfits) - 3} more' if len(misfits) > 3 else ''
        detail = '; '.join(misfits[:3]) + more if misfits else 'no footprint on the table plane'
        merged = (f'; a {parsed.phrase} inside a bowl of its colour merges with the bowl'
                  if parsed.colour and parsed.noun != 'bowl' else '')
        return _not_found(
            query,
            f'{len(primary_dets)} {parsed.phrase!r}-like region(s) in {primary_frame.camera}'
            f' but {detail} vs {parsed.noun!r} {nominal} mm; check the noun, or look closer'
            f' with a wrist camera (part of it may be hidden, e.g. by an arm){merged}'
        )
    return candidates, parsed


def _result(query: str, chosen: _Candidate, shape: NounShape, table_z_m: float) -> LocateResult:
    est = chosen.estimate
    cx, cy = est.footprint.center_xy_m
    height = None if math.isnan(est.height_m) else float(est.height_m)
    z = None if height is None else table_z_m + height / 2
    bound = BOUNDS_M[f'{chosen.source}_wide' if chosen.source == 'none'
                     and shape.width_m > WIDE_M else chosen.source]
    note = chosen.note
    if chosen.source == 'none':
        noun = parse_query(query)
        bound, wider = _one_view_bound(est, shape, noun.noun if noun else 'object', bound)
        note = '; '.join(n for n in (note, wider) if n)
    return LocateResult(
        found=True,
        reason='',
        query=query,
        position_m=(float(cx), float(cy), z),
        size_m=tuple(float(v) for v in est.footprint.size_m),
        height_m=height,
        top_z_m=chosen.top_z_m,
        heading_rad=float(est.footprint.heading_rad),
        cameras=chosen.cameras,
        pixels=chosen.pixels,
        height_source=chosen.source,
        bound_m=bound,
        note=note and (f'{note}; robo.measure({query!r}) moves a wrist camera above it and '
                       'measures it'),
        colour=chosen.colour,
    )


def _one_view_bound(est: HullEstimate, shape: NounShape, noun: str,
                    calibrated: tuple[float, float, float | None]
                    ) -> tuple[tuple[float, float, float | None], str]:
    """
    Widen a one-view bound to what the region itself allows; say so when it is wider.

    One view's footprint (the mask on the table plane) contains the object's own, so the
    object's centre lies within half of (region side - the noun's narrowest side) of the
    region's centre along each side of the region (+ ``MASK_EDGE_M``): rotated into x and
    y, that bounds the
    centre whatever merged into the region (two touching blocks of a colour seen as one).
    The calibrated bound holds for a region of one whole object; the wider of the two is
    reported, and where it is ``MASK_EDGE_M`` or more wider a note says how much larger the
    region is than the noun.
    """
    (w, d), heading = est.footprint.size_m, est.footprint.heading_rad
    nominal = min(shape.width_m, shape.depth_m)
    half_w = max(w - nominal, 0.0) / 2 + MASK_EDGE_M
    half_d = max(d - nominal, 0.0) / 2 + MASK_EDGE_M
    c, s = abs(math.cos(heading)), abs(math.sin(heading))
    bx = max(calibrated[0], c * half_w + s * half_d)
    by = max(calibrated[1], s * half_w + c * half_d)
    if bx <= calibrated[0] and by <= calibrated[1]:
        return calibrated, ''
    if max(bx - calibrated[0], by - calibrated[1]) < MASK_EDGE_M:
        return (bx, by, calibrated[2]), ''  # a few mm wider: not worth a note
    note = (f'one view saw a region {_mm((w, d))} mm vs a {_mm((shape.width_m, shape.depth_m))}'
            f' mm {noun} (grown by its height away from the camera, or touching objects of'
            ' a colour merged into one region):'
            f' its centre is only known to +-({bx * 1000:.0f}, {by * 1000:.0f}) mm')
    return (bx, by, calibrated[2]), note

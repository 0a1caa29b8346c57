"""
Footprint and height of an upright object from masks: visual hull (RGB) or depth points.

RGB: an object resting on the table is modelled as a vertical prism from the table plane
to its top height ``h``. For a trial ``h`` each camera carves the table-plane grid: a cell
stays when its column, from the table to ``h``, projects inside that camera's mask (cells
outside an image are not carved by it). The prism of the kept cells is projected back; the
``h`` whose projections best match every mask (mean IoU) is the measured height. One
camera alone cannot tell a low wide object from a tall narrow one, so with a single view
no height is measured and the footprint is only bounded (the mask on the table plane).
Depth: the pixels under the mask become 3D points; the median of the highest points is the
top, and the points above the table give the footprint.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

import cv2
import numpy as np

from .projection import project_points, rays_to_plane
from ..station import CameraModel

CELL_M = 0.001
"""Table-plane grid cell for carving, metres (1 mm: well below a head-camera pixel)."""
MAX_HEIGHT_M = 0.20
"""Tallest top the RGB hull searches, metres above the prism's bottom."""
COARSE_STEP_M = 0.004
FINE_STEP_M = 0.0005
SLOPE_SPAN_M = 0.02
MIN_IOU_SLOPE_PER_M = 1.9
"""Mean IoU must fall at least this much per metre below the best height (0.038 per 20 mm).

Measured on rendered scenes: 2.2 to 6 for well-separated views, 1.5 for a wrist camera
looking along the head camera's ray. Heights up to ``SLOPE_SPAN_M / 2`` are checked above
the best height instead (below it the curve stops at the bottom of the range)."""
SQUARE_TOLERANCE = 0.12
"""Sides within this fraction of each other make a square: heading is then in (-45, 45] deg."""


@dataclass(frozen=True, slots=True)
class Footprint:
    """Outline on the table plane: centre (x, y) and size (w, d) in metres, heading."""

    center_xy_m: tuple[float, float]
    size_m: tuple[float, float]
    heading_rad: float
    narrowest_m: float = math.nan
    """A circle's points' narrowest width (a 40 x 70 mm bound fits a 95 mm circle)."""


def fit_footprint(points_xy: np.ndarray, outline: str, pad_m: float) -> Footprint:
    """
    Fit a rotated rectangle (or a circle for ``outline='round'``) to table-plane points.

    Heading convention: ``heading_rad`` is the yaw (from +x toward +y) of the side of
    length ``size_m[0]``; that side is the longer one and the heading is in (-90, 90] deg,
    except for squares (sides within 12 %) where it is in (-45, 45] deg. Circles report
    heading 0 and their diameter twice. Crosses (``outline='cross'``) get the box aligned
    with their strips, heading in (-45, 45] deg.

    :param points_xy: N x 2 points, metres.
    :param outline: ``'box'``, ``'round'`` or ``'cross'``.
    :param pad_m: added to each side (grid cell size: centres are half a cell inside).
    """
    pts = np.ascontiguousarray(points_xy, dtype=np.float32)
    if outline == 'round':
        (ex, ey), radius = cv2.minEnclosingCircle(pts)
        diameter = 2.0 * float(radius) + pad_m
        narrowest = float(min(cv2.minAreaRect(pts)[1])) + pad_m
        return Footprint((float(ex), float(ey)), (diameter, diameter), 0.0, narrowest)
    if outline == 'cross':
        return _fit_cross(pts.astype(float), pad_m)
    (cx, cy), _, _ = rect = cv2.minAreaRect(pts)
    corners = cv2.boxPoints(rect).astype(float)
    sides = [corners[1] - corners[0], corners[2] - corners[1]]
    lengths = [float(np.linalg.norm(s)) for s in sides]
    first = 0 if lengths[0] >= lengths[1] else 1
    w, d = lengths[first] + pad_m, lengths[1 - first] + pad_m
    heading = _wrap(math.atan2(sides[first][1], sides[first][0]), w, d)
    return Footprint((float(cx), float(cy)), (w, d), heading)


def _wrap(heading: float, w: float, d: float) -> float:
    period = math.pi / 2 if (w - d) <= SQUARE_TOLERANCE * w else math.pi
    return period / 2 - ((period / 2 - heading) % period)


def _fit_cross(pts: np.ndarray, pad_m: float) -> Footprint:
    """Align a box with the strips: the yaw that maximises the 4th moment of the points."""
    centred = pts - pts.mean(axis=0)
    angles = np.radians(np.arange(-45.0, 45.0, 0.25))
    cos, sin = np.cos(angles), np.sin(angles)
    xs = centred[:, :1] * cos + centred[:, 1:] * sin
    ys = -centred[:, :1] * sin + centred[:, 1:] * cos
    best = int(np.argmax((xs**4 + ys**4).sum(axis=0)))
    x, y = xs[:, best], ys[:, best]
    mid_x, mid_y = (x.max() + x.min()) / 2, (y.max() + y.min()) / 2
    c, s = cos[best], sin[best]
    centre = pts.mean(axis=0) + np.array([mid_x * c - mid_y * s, mid_x * s + mid_y * c])
    w, d = float(np.ptp(x)) + pad_m, float(np.ptp(y)) + pad_m
    heading = _wrap(float(angles[best]), max(w, d), min(w, d))
    return Footprint((float(centre[0]), float(centre[1])), (w, d), heading)


def _mask_lookup(mask: np.ndarray, uv: np.ndarray, front: np.ndarray) -> np.ndarray:
    """Return True where uv is inside the mask or outside the image (no evidence there)."""
    h, w = mask.shape
    col = np.floor(uv[:, 0] + 0.5).astype(np.int64)
    row = np.floor(uv[:, 1] + 0.5).astype(np.int64)
    inside_image = front & (col >= 0) & (col < w) & (row >= 0) & (row < h)
    result = ~inside_image
    result[inside_image] = mask[row[inside_image], col[inside_image]]
    return result


@dataclass(slots=True)
class HullGrid:
    """The table-plane cells a primary mask allows, and the masks that carve them."""

    cells_xy: np.ndarray
    shape: tuple[int, int]
    index: np.ndarray
    origin_xy: np.ndarray
    table_z_m: float
    views: list[tuple[CameraModel, np.ndarray]]
    bottom_ok: np.ndarray

    @classmethod
    def build(cls, views: list[tuple[CameraModel, np.ndarray]], table_z_m: float) -> HullGrid:
        """Grid the primary view's mask on the table plane, with a 5 mm margin."""
        model, mask = views[0]
        rows, cols = np.nonzero(mask)
        us = np.concatenate([cols - 0.5, cols + 0.5, cols - 0.5, cols + 0.5])
        vs = np.concatenate([rows - 0.5, rows - 0.5, rows + 0.5, rows + 0.5])
        ground = rays_to_plane(model, us, vs, table_z_m)
        ground = ground[~np.isnan(ground[:, 0])]
        lo = ground[:, :2].min(axis=0) - 0.005
        hi = ground[:, :2].max(axis=0) + 0.005
        nx, ny = np.ceil((hi - lo) / CELL_M).astype(int)
        gx, gy = np.meshgrid(np.arange(nx), np.arange(ny), indexing='xy')
        index = np.stack([gx.ravel(), gy.ravel()], axis=1)
        cells = lo + (index + 0.5) * CELL_M
        grid = cls(cells, (int(ny), int(nx)), index, lo, table_z_m, views, np.zeros(0, bool))
        grid.bottom_ok = grid._inside_all(table_z_m)
        return grid

    def _inside_all(self, z_m: float, keep: np.ndarray | None = None) -> np.ndarray:
        cells = self.cells_xy if keep is None else self.cells_xy[keep]
        pts = np.column_stack([cells, np.full(len(cells), z_m)])
        ok = np.ones(len(cells), bool)
        for model, mask in self.views:
            ok &= _mask_lookup(mask, *project_points(model, pts))
        return ok

    def carve(self, height_m: float) -> np.ndarray:
        """Return the boolean cells whose column up to ``height_m`` every view allows."""
        keep = self.bottom_ok.copy()
        keep[keep] = self._inside_all(self.table_z_m + height_m, keep)
        return keep

    def silhouette_iou(self, keep: np.ndarray, height_m: float) -> float:
        """Return the mean IoU over views of the kept prism's projection and the mask."""
        return float(np.mean(self.view_ious(keep, height_m)))

    def view_ious(self, keep: np.ndarray, height_m: float) -> list[float]:
        """Return, per view, the IoU of the kept prism's projection and the mask."""
        if not keep.any():
            return [0.0] * len(self.views)
        raster = np.zeros(self.shape, np.uint8)
        raster[self.index[keep, 1], self.index[keep, 0]] = 1
        contours, _ = cv2.findContours(raster, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        scores = []
        for model, mask in self.views:
            drawn = np.zeros(mask.shape, np.uint8)
            for contour in contours:
                xy = self.origin_xy + (contour.reshape(-1, 2) + 0.5) * CELL_M
                bottom = np.column_stack([xy, np.full(len(xy), self.table_z_m)])
                top = bottom + np.array([0.0, 0.0, height_m])
                uv_b, front_b = project_points(model, bottom)
                uv_t, front_t = project_points(model, top)
                if not (front_b.all() and front_t.all()):
                    continue
                pb = np.round(uv_b * 16).astype(np.int32)
                pt = np.round(uv_t * 16).astype(np.int32)
                # One polygon per call: fillPoly's even-odd rule would cancel their overlap.
                cv2.fillPoly(drawn, [pb], 1, shift=4)
                cv2.fillPoly(drawn, [pt], 1, shift=4)
                for k in range(len(pb)):
                    quad = np.array([pb[k], pb[k - 1], pt[k - 1], pt[k]], np.int32)
                    cv2.fillConvexPoly(drawn, quad, 1, shift=4)
            inter = np.count_nonzero(drawn & mask)
            union = np.count_nonzero(drawn | mask)
            scores.append(inter / max(union, 1))
        return scores

    def footprint(self, keep: np.ndarray, outline: str) -> Footprint:
        """Fit the kept cells."""
        return fit_footprint(self.cells_xy[keep], outline, CELL_M)


@dataclass(frozen=True, slots=True)
class HullEstimate:
    """Footprint and height from masks; ``height_m`` is NaN when not measurable."""

    footprint: Footprint
    height_m: float
    iou: float
    """Mean silhouette IoU of the fit (1.0 for one view or depth, 0.0 when rejected)."""


def hull_estimate(
    views: list[tuple[CameraModel, np.ndarray]], table_z_m: float, outline: str
) -> HullEstimate | None:
    """
    Measure footprint and height of the prism seen in ``views`` (primary view first).

    :returns: the estimate; with a single view, or views too alike to fix the height, the
        height is NaN and the footprint is the primary mask's bound on the table plane;
        None when the masks leave no common footprint.
    """
    grid = HullGrid.build(views, table_z_m)
    if len(views) == 1:
        keep = grid.bottom_ok
        if not keep.any():
            return None
        return HullEstimate(grid.footprint(keep, outline), math.nan, 1.0)
    heights = np.arange(COARSE_STEP_M / 2, MAX_HEIGHT_M, COARSE_STEP_M)
    scores = [grid.silhouette_iou(grid.carve(h), h) for h in heights]
    best = float(heights[int(np.argmax(scores))])
    fine = np.arange(max(FINE_STEP_M, best - COARSE_STEP_M), best + COARSE_STEP_M, FINE_STEP_M)
    fine_scores = [grid.silhouette_iou(grid.carve(h), h) for h in fine]
    i = int(np.argmax(fine_scores))
    height = float(fine[i])
    # Views from nearly the same direction cannot tell a lower object from a taller one:
    # the IoU then hardly drops below the best height. Such a height is not measured. A
    # best height near the bottom of the range is checked above it instead: two alike
    # views of a whole 40 mm bowl far out best fit a 4 mm prism (issue 31).
    other = max(COARSE_STEP_M / 2, height - SLOPE_SPAN_M)
    if height <= SLOPE_SPAN_M / 2:
        other = height + SLOPE_SPAN_M
    drop = fine_scores[i] - grid.silhouette_iou(grid.carve(other), other)
    if drop < MIN_IOU_SLOPE_PER_M * abs(height - other):
        return HullEstimate(grid.footprint(grid.bottom_ok, outline), math.nan, 0.0)
    keep = grid.carve(height)
    if not keep.any():
        return None
    return HullEstimate(grid.footprint(keep, outline), height, float(fine_scores[i]))


def pair_consistency(views: list[tuple[CameraModel, np.ndarray]], table_z_m: float) -> float:
    """
    Return how well one prism explains every mask (0..1).

    That is the best, over a coarse height sweep, of the worst view's IoU: a mask cut by an
    occluder (a gripper finger) scores low.
    """
    grid = HullGrid.build(views, table_z_m)
    heights = np.arange(COARSE_STEP_M / 2, MAX_HEIGHT_M, 2 * COARSE_STEP_M)
    return max(min(grid.view_ious(grid.carve(h), h)) for h in heights)


def depth_points(model: CameraModel, depth_m: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Return the N x 3 world points of the mask pixels with a valid depth (metres)."""
    rows, cols = np.nonzero(mask & np.isfinite(depth_m) & (depth_m > 0))
    d = depth_m[rows, cols].astype(float)
    k = model.intrinsics
    cam = np.column_stack([(cols - k.cx) / k.fx * d, (rows - k.cy) / k.fy * d, d])
    return cam @ model.world_from_camera[:3, :3].T + model.world_from_camera[:3, 3]


def depth_estimate(
    points_m: np.ndarray, table_z_m: float, outline: str, base_m: float = 0.0
) -> HullEstimate | None:
    """
    Measure top height (median of the highest points) and footprint (points above the table).

    :param base_m: where the object's own part starts above the table (a button's cap):
        points of whatever it stands on, seen at the mask's edge, stay out of the footprint.
    :returns: None when fewer than 10 points stand above the table.
    """
    if len(points_m) < 10:
        return None
    z = points_m[:, 2]
    top_band = z >= np.percentile(z, 95) - 0.004
    top_z = float(np.median(z[top_band]))
    height = top_z - table_z_m
    above = points_m[z > table_z_m + base_m + max(0.0005, 0.3 * (height - base_m))]
    if len(above) < 10 or height <= 0:
        return None
    return HullEstimate(fit_footprint(above[:, :2], outline, 0.0), height, 1.0)

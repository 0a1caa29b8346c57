"""
Pinhole geometry on a ``CameraModel``: pixel rays, projection, back-projection to a plane.

Pixel coordinates follow OpenCV: the centre of pixel (column i, row j) is (u, v) = (i, j),
and it covers u in [i - 0.5, i + 0.5) (``MujocoStation`` sets cx = (width - 1) / 2).
Camera frames use the OpenCV optical convention (x right, y down, z forward); world points
are metres in the station frame (z up).
"""

from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np

from ..station import CameraModel

MIN_RAY_DOWN = 1e-6
"""A ray whose world z component is above -this never meets a plane below the camera."""


def pixel_rays(model: CameraModel, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """
    Return unit world directions of the rays through continuous pixels (u, v).

    :returns: N x 3 array (one row per pixel).
    """
    k = model.intrinsics
    cam = np.stack(
        [(np.asarray(u, float) - k.cx) / k.fx, (np.asarray(v, float) - k.cy) / k.fy,
         np.ones(np.shape(u))],
        axis=-1,
    ).reshape(-1, 3)
    world = cam @ model.world_from_camera[:3, :3].T
    return world / np.linalg.norm(world, axis=1, keepdims=True)


def project_points(model: CameraModel, points_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """
    Project N x 3 world points to continuous pixels.

    :returns: (N x 2 pixel coordinates, N booleans: in front of the camera).
    """
    rot = model.world_from_camera[:3, :3]
    cam = (np.asarray(points_m, float).reshape(-1, 3) - model.world_from_camera[:3, 3]) @ rot
    z = cam[:, 2]
    front = z > 1e-6
    safe = np.where(front, z, 1.0)
    k = model.intrinsics
    uv = np.stack([k.fx * cam[:, 0] / safe + k.cx, k.fy * cam[:, 1] / safe + k.cy], axis=1)
    return uv, front


def rays_to_plane(model: CameraModel, u: np.ndarray, v: np.ndarray, z_m: float) -> np.ndarray:
    """
    Intersect the rays through pixels (u, v) with the horizontal plane ``z = z_m``.

    :returns: N x 3 world points; rows are NaN where the ray does not go down to the plane.
    """
    dirs = pixel_rays(model, u, v)
    origin = model.world_from_camera[:3, 3]
    with np.errstate(divide='ignore', invalid='ignore'):
        t = (z_m - origin[2]) / dirs[:, 2]
    ok = (dirs[:, 2] < -MIN_RAY_DOWN) & (t > 0) if origin[2] > z_m else np.zeros(len(t), bool)
    points = origin + dirs * np.where(ok, t, np.nan)[:, None]
    return points


@dataclass(frozen=True, slots=True)
class BackProjectResult:
    """Where a pixel's ray meets the plane ``z = plane_z_m``: ``hit`` first, then why not."""

    hit: bool
    reason: str
    point_m: tuple[float, float, float] | None
    """None when not hit."""
    range_m: float | None
    """Distance from the optical centre to the point along the ray, metres (None: no hit)."""
    camera: str

    def __repr__(self) -> str:
        if not self.hit:
            return f'BackProjectResult(hit=False, reason={self.reason!r})'
        x, y, z = self.point_m
        return (
            f'BackProjectResult(hit, {self.camera!r} -> ({x:.3f}, {y:.3f}, {z:.3f}) m, '
            f'range {self.range_m:.3f} m)'
        )


def _outside_image(model: CameraModel, u: float, v: float) -> BackProjectResult | None:
    """Return the refusal of a pixel outside ``model``'s image (None: inside)."""
    k = model.intrinsics
    if -0.5 <= u <= k.width - 0.5 and -0.5 <= v <= k.height - 0.5:
        return None
    return BackProjectResult(
        False, f'pixel ({u:.1f}, {v:.1f}) is outside the {k.width}x{k.height} image of '
        f'{model.camera!r}; pass -0.5 <= u <= {k.width - 0.5}, -0.5 <= v <= {k.height - 0.5}',
        None, None, model.camera)


def back_project(model: CameraModel, u: float, v: float, z_m: float) -> BackProjectResult:
    """
    Return the world point where the ray through pixel (u, v) meets the plane ``z = z_m``.

    :param model: the camera model the pixel was seen with.
    :param u: column in pixels (continuous; pixel ``i`` is centred on ``u = i``).
    :param v: row in pixels.
    :param z_m: height of the horizontal plane, metres (the table top for things on it).
    :returns: the point and its range; ``hit=False`` with the reason when the pixel is
        outside the image or the ray misses the plane (points level or upward, or the
        camera is below the plane). Never extrapolates.
    """
    name = model.camera
    outside = _outside_image(model, u, v)
    if outside is not None:
        return outside
    point = rays_to_plane(model, np.array([u]), np.array([v]), z_m)[0]
    if np.isnan(point).any():
        cam_z = float(model.world_from_camera[2, 3])
        return BackProjectResult(
            False, f'ray of pixel ({u:.1f}, {v:.1f}) from {name!r} at z={cam_z:.3f} m misses '
            f'the plane z={z_m:.3f} m; pick a pixel below the horizon', None, None,
            name)
    rng = float(np.linalg.norm(point - model.world_from_camera[:3, 3]))
    return BackProjectResult(True, '', tuple(float(c) for c in point), rng, name)


@dataclass(frozen=True, slots=True)
class CameraMeta:
    """Summary of a camera model: image size, focal lengths, field of view and pose."""

    camera: str
    width_px: int
    height_px: int
    fx_px: float
    fy_px: float
    hfov_deg: float
    vfov_deg: float
    position_m: tuple[float, float, float]
    forward: tuple[float, float, float]
    """Unit viewing direction in the world frame."""
    pitch_deg: float
    """Angle of the viewing direction below the horizontal (90 = straight down)."""
    yaw_deg: float
    """Heading of the viewing direction in the xy plane, from +x toward +y."""

    def __repr__(self) -> str:
        x, y, z = self.position_m
        return (
            f'CameraMeta({self.camera!r}, {self.width_px}x{self.height_px}, '
            f'fov {self.hfov_deg:.1f}x{self.vfov_deg:.1f} deg, at ({x:.3f}, {y:.3f}, {z:.3f}) m, '
            f'pitch {self.pitch_deg:.1f} deg, yaw {self.yaw_deg:.1f} deg)'
        )


def camera_meta(model: CameraModel) -> CameraMeta:
    """Summarise ``model`` (what a program needs to reason about a camera's view)."""
    k = model.intrinsics
    fwd = model.forward
    return CameraMeta(
        camera=model.camera,
        width_px=k.width,
        height_px=k.height,
        fx_px=k.fx,
        fy_px=k.fy,
        hfov_deg=math.degrees(2.0 * math.atan(k.width / (2.0 * k.fx))),
        vfov_deg=k.fovy_deg,
        position_m=tuple(float(c) for c in model.position_m),
        forward=tuple(float(c) for c in fwd),
        pitch_deg=math.degrees(math.asin(max(-1.0, min(1.0, -float(fwd[2]))))),
        yaw_deg=math.degrees(math.atan2(float(fwd[1]), float(fwd[0]))),
    )


def depth_point(model: CameraModel, depth_m: np.ndarray, u: float, v: float) -> BackProjectResult:
    """
    Return the world point seen at pixel (u, v) of a depth image (the surface there).

    The depth is the median of the finite values in the 3 x 3 pixels around (u, v), so one
    missing pixel at an edge does not end the look-up.

    :param model: the camera model the depth image was taken with.
    :param depth_m: H x W depth along the optical axis, metres.
    :param u: column in pixels.
    :param v: row in pixels.
    :returns: the point and its range; ``hit=False`` with the reason when the pixel is
        outside the image or has no depth (nothing within the camera's range there).
    """
    name = model.camera
    outside = _outside_image(model, u, v)
    if outside is not None:
        return outside
    col, row = int(round(u)), int(round(v))
    patch = np.asarray(depth_m, dtype=float)[max(row - 1, 0):row + 2, max(col - 1, 0):col + 2]
    values = patch[np.isfinite(patch) & (patch > 0)]
    if values.size == 0:
        return BackProjectResult(
            False, f'pixel ({u:.1f}, {v:.1f}) of {name!r} has no depth (nothing in range '
            'there); pick a pixel on a surface', None, None, name)
    ray = pixel_rays(model, np.array([float(u)]), np.array([float(v)]))[0]
    along = float(ray @ model.forward)
    distance = float(np.median(values)) / along
    point = model.world_from_camera[:3, 3] + distance * ray
    return BackProjectResult(True, '', tuple(float(c) for c in point), distance, name)

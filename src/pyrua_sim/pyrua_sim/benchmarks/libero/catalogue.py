"""
The LIBERO object catalogue: each object asset the benchmark ships, rendered alone, offline.

Like a CAD model in model-based pose estimation, an object's appearance is prior knowledge
the benchmark ships (its meshes and textures), not state of an episode. For every object
category of LIBERO's registry (``libero.libero.envs.objects``) this builds the asset in an
empty MuJoCo world (nothing of any episode's scene: no table, no other object, no init
state), renders it from ``VIEWS`` and keeps per view a colour histogram (``colour_histogram``)
of the object's pixels (where the render's depth is nearer than the empty background), and
the asset's size from its collision geometry at rest. The run-time segmenter
(``rgbd.RgbdLocator``) names scene segments by these features.

Built once per category and cached (``$PYRUA_CACHE`` or ``~/.cache/pyrua``, under
``libero_catalogue/v<VERSION>/``).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
import io
import os
from pathlib import Path

import numpy as np

VERSION = 1
RENDER_PX = 128
VIEWS: tuple[tuple[float, float], ...] = tuple(
    (azimuth, elevation) for elevation in (-30.0, -55.0) for azimuth in range(0, 360, 45))
"""(azimuth, elevation) in degrees of the free camera around the asset (MuJoCo convention)."""
HUE_BINS = 18
GREY_BINS = 4
MIN_SATURATION = 0.25
"""Pixels less saturated than this count as grey, binned by brightness instead of hue."""


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    """
    One object category: its size at rest and one colour histogram per rendered view.

    ``size_m`` is (long side, short side, height) of the asset's collision geometry.
    """

    category: str
    size_m: tuple[float, float, float]
    histograms: np.ndarray

    def __repr__(self) -> str:
        long, short, height = (round(1000 * v) for v in self.size_m)
        return f'CatalogueEntry({self.category!r}, {long}x{short}x{height} mm, ' \
               f'{len(self.histograms)} views)'


def colour_histogram(rgb: np.ndarray) -> np.ndarray:
    """
    Return the normalised colour histogram of N x 3 uint8 RGB pixels.

    Chromatic pixels vote into ``HUE_BINS`` hue bins, weighted by saturation; grey ones
    into ``GREY_BINS`` brightness bins: hue and greyness survive a change of light better
    than raw RGB.
    """
    import cv2

    pixels = np.asarray(rgb, dtype=np.uint8).reshape(-1, 1, 3)
    hsv = cv2.cvtColor(pixels, cv2.COLOR_RGB2HSV_FULL).reshape(-1, 3).astype(float) / 255.0
    hue, sat, val = hsv[:, 0], hsv[:, 1], hsv[:, 2]
    chroma = (sat >= MIN_SATURATION) & (val > 0.12)
    hist = np.zeros(HUE_BINS + GREY_BINS)
    np.add.at(hist, np.minimum((hue[chroma] * HUE_BINS).astype(int), HUE_BINS - 1),
              sat[chroma])
    np.add.at(hist, HUE_BINS + np.minimum((val[~chroma] * GREY_BINS).astype(int),
                                          GREY_BINS - 1), 1.0)
    total = hist.sum()
    return hist / total if total > 0 else hist


def histogram_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Return the Hellinger distance of two normalised histograms (0 same .. 1 disjoint)."""
    return float(np.sqrt(max(0.0, 1.0 - float(np.sum(np.sqrt(a * b))))))


def cache_dir() -> Path:
    """Return the folder the catalogue's entries are kept in."""
    root = os.environ.get('PYRUA_CACHE') or os.path.join(Path.home(), '.cache', 'pyrua')
    return Path(root) / 'libero_catalogue' / f'v{VERSION}'


def categories() -> tuple[str, ...]:
    """Return every object category of LIBERO's registry."""
    with contextlib.redirect_stdout(io.StringIO()):
        from libero.libero.envs.objects import get_object_dict

        return tuple(sorted(get_object_dict()))


def entry(category: str) -> CatalogueEntry:
    """Return the catalogue entry of ``category``, rendering (and caching) it on first use."""
    path = cache_dir() / f'{category}.npz'
    if path.is_file():
        with np.load(path, allow_pickle=False) as data:
            return CatalogueEntry(category, tuple(float(v) for v in data['size_m']),
                                  data['histograms'])
    made = render_entry(category)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + '.part.npz')
    np.savez_compressed(partial, size_m=np.array(made.size_m), histograms=made.histograms)
    partial.replace(path)
    return made


def asset_model(category: str):
    """
    Build the category's asset alone in an empty MuJoCo world, lit from above.

    :raises ValueError: for a category LIBERO's registry does not have.
    """
    import mujoco

    with contextlib.redirect_stdout(io.StringIO()):
        from libero.libero.envs.objects import get_object_dict
        from robosuite.models.world import MujocoWorldBase

    registry = get_object_dict()
    if category not in registry:
        from pyrua_primitives.naming import unknown_name

        raise ValueError(unknown_name('LIBERO object category', category, registry))
    with contextlib.redirect_stdout(io.StringIO()):
        asset = registry[category](name='asset')
    world = MujocoWorldBase()
    world.worldbody.append(asset.get_obj())
    world.merge_assets(asset)
    xml = world.get_xml().replace(
        '<worldbody>', '<worldbody><light directional="true" pos="0 0 3" dir="0 -0.3 -1" '
        'diffuse="0.7 0.7 0.7" specular="0.2 0.2 0.2"/>', 1)
    model = mujoco.MjModel.from_xml_string(xml)
    model.vis.headlight.ambient[:] = 0.35
    model.vis.headlight.diffuse[:] = 0.4
    return model


def _collision_box(model, data) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    collide = [g for g in range(model.ngeom)
               if model.geom_contype[g] or model.geom_conaffinity[g]]
    for geom in collide or range(model.ngeom):
        rot = data.geom_xmat[geom].reshape(3, 3)
        centre = data.geom_xpos[geom] + rot @ model.geom_aabb[geom][:3]
        half = np.abs(rot) @ model.geom_aabb[geom][3:]
        lo, hi = np.minimum(lo, centre - half), np.maximum(hi, centre + half)
    return lo, hi


def render_entry(category: str) -> CatalogueEntry:
    """Render ``category``'s asset alone from every view and measure it (no cache)."""
    import mujoco

    model = asset_model(category)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    lo, hi = _collision_box(model, data)
    w, d, h = hi - lo
    camera = mujoco.MjvCamera()
    camera.type = mujoco.mjtCamera.mjCAMERA_FREE
    camera.lookat[:] = (lo + hi) / 2
    camera.distance = 2.2 * float(np.linalg.norm(hi - lo))
    model.vis.map.znear = 0.01
    histograms = []
    with mujoco.Renderer(model, RENDER_PX, RENDER_PX) as renderer:
        for azimuth, elevation in VIEWS:
            camera.azimuth, camera.elevation = azimuth, elevation
            renderer.update_scene(data, camera=camera)
            rgb = renderer.render().copy()
            renderer.enable_depth_rendering()
            renderer.update_scene(data, camera=camera)
            depth = renderer.render().copy()
            renderer.disable_depth_rendering()
            mask = depth < 0.98 * float(depth.max())  # the asset, not the empty background
            if np.count_nonzero(mask) >= 20:
                histograms.append(colour_histogram(rgb[mask]))
    if not histograms:
        raise ValueError(f'LIBERO asset {category!r} rendered no pixels from any view')
    return CatalogueEntry(category, (float(max(w, d)), float(min(w, d)), float(h)),
                          np.array(histograms))

"""Tiny MuJoCo scenes rendered into CameraFrames for the perception tests (no twin needed)."""

from __future__ import annotations

from dataclasses import dataclass
import math
from types import SimpleNamespace

import numpy as np
from pyrua_primitives import CameraFrame, CameraIntrinsics, CameraModel

# Imported before mujoco (inside render_frames): it picks the headless GL backend.
import pyrua_sim  # noqa: F401
import pytest

TABLE_Z = 0.765
HEAD_POS = (0.0, -0.41, 1.308)
HEAD_XYAXES = (1.0, 0.0, 0.0, 0.0, 0.866, 0.5)
HEAD_FOVY_DEG = 79.6
WRIST_FOVY_DEG = 62.3
RGBA = {
    'red': (0.85, 0.10, 0.10),
    'green': (0.10, 0.65, 0.20),
    'blue': (0.10, 0.30, 0.90),
    'yellow': (0.95, 0.85, 0.10),
    'orange': (1.00, 0.50, 0.05),
    'purple': (0.55, 0.20, 0.75),
}


@dataclass(frozen=True)
class Thing:
    """An object: kind 'box', 'cylinder', 'cross' or 'button'; size (w, d, h) metres."""

    kind: str
    colour: str
    xy: tuple[float, float]
    size: tuple[float, float, float]
    yaw_deg: float = 0.0

    def geoms(self) -> str:
        r, g, b = RGBA[self.colour]
        w, d, h = self.size
        x, y = self.xy
        pos = f'{x} {y} {TABLE_Z + h / 2}'
        euler = f'0 0 {self.yaw_deg}'
        rgba = f'{r} {g} {b} 1'
        if self.kind == 'box':
            return (f'<geom type="box" size="{w / 2} {d / 2} {h / 2}" pos="{pos}" '
                    f'euler="{euler}" rgba="{rgba}"/>')
        if self.kind == 'button':
            base = f'<geom type="cylinder" size="0.03 0.015" pos="{x} {y} {TABLE_Z + 0.015}" ' \
                'rgba="0.5 0.5 0.5 1"/>'
            return base + (f'<geom type="cylinder" size="{w / 2} 0.0075" '
                           f'pos="{x} {y} {TABLE_Z + 0.0375}" rgba="{rgba}"/>')
        if self.kind == 'cylinder':
            return f'<geom type="cylinder" size="{w/2} {h/2}" pos="{pos}" rgba="{rgba}"/>'
        strip = f'type="box" size="{w / 2} {w / 12} {h / 2}" pos="{pos}" rgba="{rgba}"'
        return (f'<geom {strip} euler="{euler}"/>'
                f'<geom {strip} euler="0 0 {self.yaw_deg + 90}"/>')


def look_at(pos: tuple[float, float, float], target: tuple[float, float, float]) -> tuple:
    """Return MuJoCo xyaxes for a camera at ``pos`` looking at ``target`` (image up ~ +z)."""
    f = np.subtract(target, pos)
    f = f / np.linalg.norm(f)
    x = np.cross(f, [0.0, 0.0, 1.0])
    x = x / np.linalg.norm(x)
    y = np.cross(x, f)
    return (*x, *y)


def scene_xml(things: list[Thing], cameras: dict[str, tuple]) -> str:
    cams = ''.join(
        f'<camera name="{name}" pos="{" ".join(map(str, pos))}" '
        f'xyaxes="{" ".join(f"{v:.6f}" for v in axes)}" fovy="{fovy}"/>'
        for name, (pos, axes, fovy) in cameras.items()
    )
    return f"""<mujoco>
  <visual><global offwidth="640" offheight="480"/><quality offsamples="0"/></visual>
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1" directional="true" diffuse="0.6 0.6 0.6"/>
    <geom type="box" size="0.7 0.55 0.025" pos="0 -0.05 {TABLE_Z - 0.025}" rgba="0.72 0.68 0.6 1"/>
    {''.join(t.geoms() for t in things)}
    {cams}
  </worldbody>
</mujoco>"""


def render_frames(things: list[Thing], wrist: dict[str, tuple] | None = None,
                  depth: bool = False, geom_ids: dict | None = None) -> list[CameraFrame]:
    """
    Render the head camera (and ``wrist``: name -> (pos, target)) as CameraFrames.

    ``geom_ids``, when given, is filled with camera -> H x W geom id image (table = 0,
    then the things' geoms in order; -1 = background): the ground truth for the oracle.
    """
    import mujoco

    cameras = {'head': (HEAD_POS, HEAD_XYAXES, HEAD_FOVY_DEG)}
    for name, (pos, target) in (wrist or {}).items():
        cameras[name] = (pos, look_at(pos, target), WRIST_FOVY_DEG)
    model = mujoco.MjModel.from_xml_string(scene_xml(things, cameras))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    frames = []
    renderer = mujoco.Renderer(model, 480, 640)
    try:
        for i, (name, (_, _, fovy)) in enumerate(cameras.items()):
            renderer.update_scene(data, name)
            rgb = renderer.render().copy()
            depth_m = None
            if depth:
                renderer.enable_depth_rendering()
                renderer.update_scene(data, name)
                depth_m = renderer.render().astype(np.float32).copy()
                renderer.disable_depth_rendering()
            if geom_ids is not None:
                renderer.enable_segmentation_rendering()
                renderer.update_scene(data, name)
                seg = renderer.render()
                geom_ids[name] = np.where(seg[..., 1] == mujoco.mjtObj.mjOBJ_GEOM, seg[..., 0], -1)
                renderer.disable_segmentation_rendering()
            f = 240.0 / math.tan(math.radians(fovy) / 2)
            pose = np.eye(4)
            pose[:3, :3] = data.cam_xmat[i].reshape(3, 3) @ np.diag([1.0, -1.0, -1.0])
            pose[:3, 3] = data.cam_xpos[i]
            cam = CameraModel(name, CameraIntrinsics(640, 480, f, f, 319.5, 239.5), pose, 0.0)
            frames.append(CameraFrame(name, rgb, cam, 0.0, depth_m))
    finally:
        renderer.close()
    return frames


@pytest.fixture(scope='session')
def block_scene() -> tuple[list[CameraFrame], list[CameraFrame], Thing]:
    """Render a red 4 cm block at yaw 20 deg: RGB frames (head, right wrist), depth frames."""
    block = Thing('box', 'red', (0.08, 0.05), (0.04, 0.04, 0.04), 20.0)
    others = [Thing('cylinder', 'blue', (-0.2, 0.1), (0.13, 0.13, 0.04)),
              Thing('box', 'green', (0.25, 0.2), (0.12, 0.12, 0.002))]
    wrist = {'right_wrist': ((0.25, -0.15, 1.05), (0.08, 0.05, TABLE_Z))}
    rgb = render_frames([block, *others], wrist)
    depth = render_frames([block, *others], wrist, depth=True)
    return rgb, depth, block


@pytest.fixture(scope='session')
def scenes() -> SimpleNamespace:
    """Return the scene builder: ``Thing``, ``render`` (render_frames) and ``table_z``."""
    return SimpleNamespace(Thing=Thing, render=render_frames, table_z=TABLE_Z)

"""
Cameras of the twin: pinhole models in the OpenCV convention and on-demand rendering.

MuJoCo cameras look along their -z axis with y up; the Station API uses the OpenCV optical
frame (x right, y down, z forward), so the rotation's y and z columns flip. Intrinsics come
from the MJCF ``fovy`` with square pixels and pixel centres at integer coordinates, so the
principal point is ((w - 1) / 2, (h - 1) / 2).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import mujoco
import numpy as np
from pyrua_primitives.station import CameraFrame, CameraIntrinsics, CameraModel

from .errors import RendererUnavailable
from .rendering import INSTALL_HINT, require_backend

_MUJOCO_FROM_OPENCV = np.diag([1.0, -1.0, -1.0])


class CameraRig:
    """
    Renders a model's cameras at one resolution; the OpenGL renderer is made on first use.

    An OpenGL context belongs to the thread that made it current (EGL and OSMesa refuse
    another thread with EGL_BAD_ACCESS), while primitives capture from whichever thread
    runs them. So every GL call (create, render, close) runs on one rendering thread of
    the rig's own. Not thread-safe by itself: ``MujocoStation`` calls it under its lock.
    Call ``close()``.

    :param model: the compiled station model.
    :param width: image width, pixels.
    :param height: image height, pixels.
    """

    def __init__(self, model: mujoco.MjModel, width: int, height: int) -> None:
        self._model = model
        self._size = (width, height)
        self._renderer: mujoco.Renderer | None = None
        self._gl_thread: ThreadPoolExecutor | None = None

    def close(self) -> None:
        """Release the OpenGL renderer and its thread (a later capture makes new ones)."""
        if self._gl_thread is None:
            return
        self._gl_thread.submit(self._close_renderer).result()
        self._gl_thread.shutdown(wait=True)
        self._gl_thread = None

    def _close_renderer(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    def update_poses(self, data: mujoco.MjData) -> None:
        """Recompute body and camera poses from ``qpos`` (the physics state is untouched)."""
        mujoco.mj_kinematics(self._model, data)
        mujoco.mj_camlight(self._model, data)

    def camera_model(self, data: mujoco.MjData, camera: str, camera_id: int) -> CameraModel:
        """Return ``camera``'s intrinsics and world pose as of the last ``update_poses``."""
        width, height = self._size
        fy = 0.5 * height / np.tan(np.radians(self._model.cam_fovy[camera_id]) / 2.0)
        intrinsics = CameraIntrinsics(width, height, fy, fy, (width - 1) / 2.0, (height - 1) / 2.0)
        pose = np.eye(4)
        pose[:3, :3] = data.cam_xmat[camera_id].reshape(3, 3) @ _MUJOCO_FROM_OPENCV
        pose[:3, 3] = data.cam_xpos[camera_id]
        return CameraModel(camera, intrinsics, pose, float(data.time))

    def capture(
        self, data: mujoco.MjData, camera: str, camera_id: int, depth: bool
    ) -> CameraFrame:
        """
        Render ``camera`` now: RGB, and depth along the optical axis (metres) when asked.

        :raises RendererUnavailable: when no offscreen OpenGL backend works here.
        """
        if self._gl_thread is None:
            self._gl_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix='pyrua-gl')
        return self._gl_thread.submit(self._render, data, camera, camera_id, depth).result()

    def _render(
        self, data: mujoco.MjData, camera: str, camera_id: int, depth: bool
    ) -> CameraFrame:
        renderer = self._get_renderer()
        self.update_poses(data)
        renderer.update_scene(data, camera=camera_id)
        rgb = renderer.render().copy()
        depth_m = None
        if depth:
            renderer.enable_depth_rendering()
            try:
                depth_m = renderer.render().astype(np.float32)
            finally:
                renderer.disable_depth_rendering()
        model = self.camera_model(data, camera, camera_id)
        return CameraFrame(camera, rgb, model, model.stamp_s, depth_m)

    def _get_renderer(self) -> mujoco.Renderer:
        if self._renderer is None:
            backend = require_backend()
            width, height = self._size
            try:
                self._renderer = mujoco.Renderer(self._model, height=height, width=width)
            except Exception as exc:  # noqa: BLE001 - any GL failure means the same here
                raise RendererUnavailable(
                    f'MUJOCO_GL={backend} failed to create a {width}x{height} renderer: {exc}; '
                    f'{INSTALL_HINT}'
                ) from exc
        return self._renderer

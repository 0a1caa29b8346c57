"""
Choose the headless OpenGL backend for MuJoCo before ``mujoco`` is imported.

MuJoCo reads ``MUJOCO_GL`` once, at import. A value set by the user is kept. Otherwise the
first backend whose library loads is chosen: EGL (``libEGL.so.1`` with a Mesa driver),
then OSMesa (``libOSMesa``). With neither, rendering raises ``RendererUnavailable``
naming the Debian packages to install; physics still works without a renderer.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

from .errors import RendererUnavailable

__all__ = [
    'BACKEND',
    'check_offscreen_rendering',
    'choose_backend',
    'INSTALL_HINT',
    'RendererUnavailable',
    'require_backend',
]

INSTALL_HINT = (
    'install OSMesa or EGL, e.g. `sudo apt-get install libosmesa6` (or `libegl1` with a Mesa '
    'driver), or set MUJOCO_GL to a backend that works here'
)
_LIBRARIES = {'egl': ('EGL',), 'osmesa': ('OSMesa',)}


def _loadable(names: tuple[str, ...]) -> bool:
    for name in names:
        path = ctypes.util.find_library(name)
        if path is None:
            continue
        try:
            ctypes.CDLL(path)
        except OSError:
            continue
        return True
    return False


def choose_backend() -> str | None:
    """
    Return the MuJoCo GL backend to use: the user's ``MUJOCO_GL`` or the first that loads.

    :returns: ``'egl'``, ``'osmesa'``, the user's value, or None when nothing loads.
    """
    chosen = os.environ.get('MUJOCO_GL')
    if chosen:
        return chosen
    for backend, libraries in _LIBRARIES.items():
        if _loadable(libraries):
            return backend
    return None


BACKEND = choose_backend()
if BACKEND is not None:
    os.environ['MUJOCO_GL'] = BACKEND
    # PyOpenGL (used by MuJoCo's Python renderer) reads this one.
    os.environ.setdefault('PYOPENGL_PLATFORM', BACKEND)


def require_backend() -> str:
    """
    Return the chosen backend or raise with the packages to install.

    :raises RendererUnavailable: when neither EGL nor OSMesa can be loaded.
    """
    if BACKEND is None:
        raise RendererUnavailable(
            f'no offscreen OpenGL backend found (tried EGL, OSMesa); {INSTALL_HINT}'
        )
    return BACKEND


def check_offscreen_rendering() -> None:
    """
    Render one tiny frame to prove the backend works (used by ``scripts/setup.sh``).

    :raises RendererUnavailable: with the backend that failed and the packages to install.
    """
    backend = require_backend()
    import mujoco

    model = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><light pos="0 0 1"/><geom type="sphere" size="0.1"/>'
        '<camera name="c" pos="0 -1 0" xyaxes="1 0 0 0 0 1"/></worldbody></mujoco>'
    )
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    try:
        renderer = mujoco.Renderer(model, 32, 32)
    except Exception as exc:  # noqa: BLE001 - any GL failure means the same thing here
        raise RendererUnavailable(f'MUJOCO_GL={backend} failed: {exc}; {INSTALL_HINT}') from exc
    try:
        renderer.update_scene(data, 'c')
        pixels = renderer.render()
    finally:
        renderer.close()
    if pixels.max() == 0:
        raise RendererUnavailable(f'MUJOCO_GL={backend} rendered a black frame; {INSTALL_HINT}')

"""
The MJCF of the dual-arm ARX-X5 station, written from simple shapes (no meshes).

``arx_x5.xml`` is one arm; ``station.xml`` is the scene that attaches it twice as ``left/``
and ``right/``. Tasks add their objects to a fresh spec from ``station_spec()`` and compile it.
"""

from __future__ import annotations

from pathlib import Path

import mujoco

MODEL_DIR = Path(__file__).resolve().parent
"""Folder holding ``arx_x5.xml`` and ``station.xml``."""

STATION_XML = MODEL_DIR / 'station.xml'


def station_spec() -> mujoco.MjSpec:
    """
    Return a fresh, uncompiled spec of the bare station (table, cameras, two arms).

    Add bodies to ``spec.worldbody`` and call ``spec.compile()``. The ``home`` keyframe
    lists only the 16 arm joints; MuJoCo fills the joints added later with their
    ``qpos0`` (the pose they were added with).

    :returns: a new ``mujoco.MjSpec`` each call, safe to modify.
    """
    return mujoco.MjSpec.from_file(str(STATION_XML))

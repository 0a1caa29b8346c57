"""
The MJCF of the dual-arm ARX-X5 station, written from simple shapes (no meshes).

``arx_x5.xml`` is one arm; ``station.xml`` is the scene that attaches it twice as ``left/``
and ``right/``. Tasks add their objects to a fresh spec from ``station_spec()`` and compile it.
``station_geometry()`` reads the table top and the arm bases from the compiled scene, so the
layout sampler uses the model's numbers instead of a copy of them.
"""

from __future__ import annotations

from dataclasses import dataclass
import functools
from pathlib import Path

import mujoco

MODEL_DIR = Path(__file__).resolve().parent
"""Folder holding ``arx_x5.xml`` and ``station.xml``."""

STATION_XML = MODEL_DIR / 'station.xml'
TABLE_TOP_GEOM = 'table_top'
ARM_BASE_BODY = '{arm}/base_link'
ARMS = ('left', 'right')


def station_spec() -> mujoco.MjSpec:
    """
    Return a fresh, uncompiled spec of the bare station (table, cameras, two arms).

    Add bodies to ``spec.worldbody`` and call ``spec.compile()``. The ``home`` keyframe
    lists only the 16 arm joints; MuJoCo fills the joints added later with their
    ``qpos0`` (the pose they were added with).

    :returns: a new ``mujoco.MjSpec`` each call, safe to modify.
    """
    return mujoco.MjSpec.from_file(str(STATION_XML))


@dataclass(frozen=True, slots=True)
class StationGeometry:
    """
    The bare station's table top and arm bases, read from the compiled MJCF (metres).

    :param table_z_m: z of the table top.
    :param arm_bases_xy: arm name -> (x, y) of its base.
    """

    table_z_m: float
    arm_bases_xy: dict[str, tuple[float, float]]

    def __repr__(self) -> str:
        bases = ', '.join(f'{a} ({x:.2f}, {y:.2f})' for a, (x, y) in self.arm_bases_xy.items())
        return f'StationGeometry(table z={self.table_z_m:.3f} m, {bases})'


@functools.cache
def station_geometry() -> StationGeometry:
    """
    Return the table top and arm bases of ``station.xml``, compiled (about 3 ms, once).

    Values are rounded to a micrometre: the MJCF states them in millimetres, and the layout
    sampler should not see float noise of the kinematics.

    :returns: the StationGeometry.
    """
    model = station_spec().compile()
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    table = model.geom(TABLE_TOP_GEOM)
    top = float(data.geom_xpos[table.id][2] + model.geom_size[table.id][2])
    bases = {}
    for arm in ARMS:
        body = model.body(ARM_BASE_BODY.format(arm=arm)).id
        bases[arm] = (round(float(data.xpos[body][0]), 6), round(float(data.xpos[body][1]), 6))
    return StationGeometry(table_z_m=round(top, 6), arm_bases_xy=bases)

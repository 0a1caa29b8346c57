"""
PRIVILEGED LIBERO locate (DESIGN.md rule 4): object poses by the benchmark's object names.

``OracleLocator`` reads the simulator's ground truth: the body pose of a named object (or
fixture region) and the box that bounds its geoms. It is never a default: the episode
assembly installs it as ``locate`` only when ``perception='oracle'`` is asked for, and its
results say so (``cameras=('oracle',)``, ``height_source='oracle'``, ``note='perception:
oracle ...'``), as does the episode's record.
"""

from __future__ import annotations

import difflib
import math

import mujoco
import numpy as np
from pyrua_primitives.perception import LocateResult
from pyrua_primitives.perception.segmenter import UnsupportedQuery

PERCEPTION = 'oracle'


class OracleLocator:
    """
    Locate LIBERO objects by name from ground truth (privileged).

    :param env: the LIBERO ``ControlEnv``.
    :param station: its LiberoStation (for the table height).
    """

    name = PERCEPTION

    def __init__(self, env, station) -> None:
        self._env = env
        self._station = station

    def names(self) -> tuple[str, ...]:
        """Return the benchmark's object and fixture names of this task."""
        inner = self._env.env
        names = list(inner.objects_dict) + list(inner.fixtures_dict)
        return tuple(names)

    def segment(self, frame, query) -> list:
        """Refuse: the LIBERO oracle finds objects by name, not in images."""
        raise UnsupportedQuery('the LIBERO oracle locates by benchmark object name: '
                               'robo.locate(name) with a name from robo.objects()')

    def objects(self) -> tuple[str, ...]:
        """
        List the benchmark's names of the objects and fixtures in this scene (PRIVILEGED).

        :returns: names such as 'akita_black_bowl_1', 'plate_1', 'wooden_cabinet_1'; pass
            one to robo.locate. Available only with perception: oracle.
        """
        return self.names()

    def _bodies(self, name: str) -> list[int]:
        model = self._env.sim.model._model
        root = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, f'{name}_main')
        if root < 0:
            root = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
        if root < 0:
            return []
        return [b for b in range(model.nbody) if _descends(model, b, root)]

    def locate(self, query: str, cameras: object = None) -> LocateResult:
        """
        Find a LIBERO object by its benchmark name (PRIVILEGED: simulator ground truth).

        :param query: a benchmark object name, e.g. 'akita_black_bowl_1', 'plate_1',
            'wooden_cabinet_1' (underscores or spaces); a region of a fixture as
            '<fixture>/<region>' is not supported.
        :param cameras: ignored (no camera is used: the pose is ground truth).
        :returns: LocateResult with position_m (centre of the object's bounding box),
            size_m (footprint of the box), height_m, top_z_m and heading_rad (yaw of the
            object body), cameras=('oracle',); found=False with the known names otherwise.
        """
        if not isinstance(query, str) or not query.strip():
            raise TypeError(f"query must be an object name like 'plate_1', got {query!r}")
        name = query.strip().replace(' ', '_')
        known = self.names()
        bodies = self._bodies(name) if name in known else []
        if not bodies:
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
            hint = f'did you mean {close[0]!r}? ' if close else ''
            return LocateResult(found=False, query=query, reason=(
                f'no object {name!r} in this LIBERO task; {hint}objects: {", ".join(known)} '
                '(perception: oracle)'))
        lo, hi = self._bounds(bodies)
        data = self._env.sim.data._data
        root = bodies[0]
        rot = data.xmat[root].reshape(3, 3)
        heading = math.atan2(rot[1, 0], rot[0, 0])
        centre = (lo + hi) / 2
        return LocateResult(
            found=True, reason='', query=query,
            position_m=tuple(float(c) for c in centre),
            size_m=(float(hi[0] - lo[0]), float(hi[1] - lo[1])),
            height_m=float(hi[2] - lo[2]), top_z_m=float(hi[2]),
            heading_rad=float((heading + math.pi / 2) % math.pi - math.pi / 2),
            cameras=(PERCEPTION,), pixels=(), height_source=PERCEPTION,
            note='perception: oracle (simulator ground truth)')

    def _bounds(self, bodies: list[int]) -> tuple[np.ndarray, np.ndarray]:
        model = self._env.sim.model._model
        data = self._env.sim.data._data
        lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
        wanted = set(bodies)
        for geom in range(model.ngeom):
            if model.geom_bodyid[geom] not in wanted:
                continue
            if model.geom_contype[geom] == 0 and model.geom_conaffinity[geom] == 0:
                continue  # visual-only meshes: the collision geoms bound the object
            centre = model.geom_aabb[geom][:3]
            half = model.geom_aabb[geom][3:]
            rot = data.geom_xmat[geom].reshape(3, 3)
            world_centre = data.geom_xpos[geom] + rot @ centre
            world_half = np.abs(rot) @ half
            lo = np.minimum(lo, world_centre - world_half)
            hi = np.maximum(hi, world_centre + world_half)
        if not np.all(np.isfinite(lo)):
            for body in bodies:
                lo = np.minimum(lo, data.xpos[body])
                hi = np.maximum(hi, data.xpos[body])
        return lo, hi


def _descends(model: mujoco.MjModel, body: int, root: int) -> bool:
    while body > 0:
        if body == root:
            return True
        body = int(model.body_parentid[body])
    return root == 0

"""
The EVALUATOR-ONLY view of the twin: ground-truth object poses and the raw MuJoCo state.

``MujocoStation.privileged_state()`` returns a ``PrivilegedState``. It exists for the
evaluator, the success guard and test set-up. It is not part of the Station interface, and
nothing an agent or a primitive can reach may hold one (DESIGN.md rule 4).
"""

from __future__ import annotations

import threading

import mujoco
import numpy as np
from pyrua_primitives.naming import unknown_name


class PrivilegedState:
    """
    Ground truth of one station: read and place bodies; ``model``/``data`` for the rest.

    Hold ``lock`` while touching ``data`` directly from another thread than the one moving
    the arms.
    """

    __slots__ = ('_model', '_data', 'lock')

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData, lock: threading.RLock) -> None:
        self._model = model
        self._data = data
        self.lock = lock

    @property
    def model(self) -> mujoco.MjModel:
        """Return the compiled MjModel; for the evaluator only."""
        return self._model

    @property
    def data(self) -> mujoco.MjData:
        """Return the live MjData; for the evaluator only."""
        return self._data

    def _body(self, name: str) -> int:
        try:
            return self._model.body(name).id
        except KeyError:
            names = [self._model.body(i).name for i in range(self._model.nbody)]
            raise KeyError(unknown_name('body', name, names)) from None

    def body_pose(self, name: str) -> np.ndarray:
        """
        Return body ``name``'s world pose (x, y, z, qw, qx, qy, qz), metres.

        :raises KeyError: for an unknown body, listing the valid names.
        """
        body = self._body(name)
        with self.lock:
            return np.concatenate([self._data.xpos[body], self._data.xquat[body]]).copy()

    def set_body_pose(self, name: str, pose: np.ndarray) -> None:
        """
        Place free body ``name`` at ``pose`` at rest and recompute the derived state.

        :param name: a body with a free joint (a task object).
        :param pose: (x, y, z) keeping the orientation, or (x, y, z, qw, qx, qy, qz).
        :raises KeyError: for an unknown body.
        :raises ValueError: for a body without a free joint or a pose of the wrong length.
        """
        body = self._body(name)
        pose = np.asarray(pose, dtype=float)
        if pose.shape not in ((3,), (7,)):
            raise ValueError(f'pose shape {pose.shape} vs (3,) or (7,); give xyz or xyz + wxyz')
        joint = self._model.body_jntadr[body]
        if joint < 0 or self._model.jnt_type[joint] != mujoco.mjtJoint.mjJNT_FREE:
            raise ValueError(f'body {name!r} has no free joint vs a movable object; pick one')
        adr = self._model.jnt_qposadr[joint]
        dof = self._model.jnt_dofadr[joint]
        position = slice(adr, adr + 3)
        orientation = slice(adr + 3, adr + 7)
        with self.lock:
            self._data.qpos[position] = pose[:3]
            if pose.shape == (7,):
                self._data.qpos[orientation] = pose[3:] / np.linalg.norm(pose[3:])
            self._data.qvel[slice(dof, dof + 6)] = 0.0
            mujoco.mj_forward(self._model, self._data)

    def forward(self) -> None:
        """Recompute positions, contacts and sensors after editing ``data`` directly."""
        with self.lock:
            mujoco.mj_forward(self._model, self._data)

"""Where each arm's joints, actuators and base live in a compiled station model."""

from __future__ import annotations

from collections.abc import Callable

import mujoco
import numpy as np
from pyrua_primitives.kinematics.arx_x5 import VELOCITY_LIMITS_RAD_S

from .errors import ModelError

ARM_JOINTS = tuple(f'joint{i}' for i in range(1, 7))
FINGER_JOINTS = ('joint7', 'joint8')
MAX_VELOCITY_RAD_S = VELOCITY_LIMITS_RAD_S
"""arx5-sdk joint velocity limits, rad/s (reference arx_x5.md section 1.7): the arm's own data.

MJCF has no joint velocity limit, so the twin takes them from the arm's kinematic model."""


def find(kind: str, lookup: Callable[[str], object], name: str):
    """
    Return ``lookup(name)`` (an MjModel accessor such as ``model.joint``) or raise.

    :raises ModelError: naming the missing ``kind`` and ``name``.
    """
    try:
        return lookup(name)
    except KeyError:
        raise ModelError(
            f'model has no {kind} {name!r}; build the scene on pyrua_sim.model.station_spec()'
        ) from None


class ArmIndex:
    """
    Indices of one arm (``'left'`` or ``'right'``) in a compiled model.

    ``qpos``/``dof``/``ctrl`` address the six arm joints; ``finger_*`` joint7 and joint8;
    ``lower``/``upper`` are the actuators' ctrlrange (the vendor soft limits, rad).
    """

    def __init__(self, model: mujoco.MjModel, arm: str) -> None:
        joints = [find('joint', model.joint, f'{arm}/{n}') for n in ARM_JOINTS]
        fingers = [find('joint', model.joint, f'{arm}/{n}') for n in FINGER_JOINTS]
        self.qpos = np.array([j.qposadr[0] for j in joints])
        self.dof = np.array([j.dofadr[0] for j in joints])
        self.finger_qpos = np.array([j.qposadr[0] for j in fingers])
        self.finger_dof = np.array([j.dofadr[0] for j in fingers])
        actuators = [find('actuator', model.actuator, f'{arm}/{n}') for n in ARM_JOINTS]
        self.ctrl = np.array([a.id for a in actuators])
        self.gripper_ctrl = find('actuator', model.actuator, f'{arm}/gripper').id
        self.lower = model.actuator_ctrlrange[self.ctrl, 0].copy()
        self.upper = model.actuator_ctrlrange[self.ctrl, 1].copy()
        self.finger_max_m = float(fingers[0].range[1])
        self.base_body = find('body', model.body, f'{arm}/base_link').id

"""
``sensor_msgs/JointState`` <-> per-arm ``JointState``.

Joint names are the MJCF names, ``<arm>/joint1`` .. ``<arm>/joint6`` for the arm and
``<arm>/joint7``, ``<arm>/joint8`` for the two fingers (each 0 .. 0.044 m, opening), so the
gripper width is joint7 + joint8 (reference ``arx_x5.md`` §1). A driver that names its joints
differently is remapped with ``prefix`` (e.g. ``'left_'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .fields import MessageFactory
from .stamps import make_header, stamp_to_s
from ..station import ARM_DOF, JointState


def arm_joint_names(arm: str, prefix: str | None = None) -> tuple[str, ...]:
    """Return the six arm joint names of ``arm`` (prefix default ``'<arm>/'``)."""
    prefix = f'{arm}/' if prefix is None else prefix
    return tuple(f'{prefix}joint{i}' for i in range(1, ARM_DOF + 1))


def finger_joint_names(arm: str, prefix: str | None = None) -> tuple[str, str]:
    """Return the two finger joint names of ``arm`` (each finger's opening, metres)."""
    prefix = f'{arm}/' if prefix is None else prefix
    return (f'{prefix}joint7', f'{prefix}joint8')


def station_time_s(msg: Any) -> float:
    """
    Return the station's clock from a ``sensor_msgs/JointState``: its stamp, seconds.

    The driver (or the twin's sim node, in simulated time) stamps each sample, so this is
    the station's time whatever the reading node's ``use_sim_time``. A stamp of 0 is a
    time like any other (the twin's clock right after a reset), never replaced by the
    reader's clock: everything a model reads keeps one time base, the station's.
    """
    return stamp_to_s(msg.header.stamp)


def joint_state_from_message(msg: Any, arm: str, prefix: str | None = None) -> JointState:
    """
    Return ``arm``'s state from a ``sensor_msgs/JointState`` that names its joints.

    Velocities default to zero when the message carries none (allowed by the message).

    :raises KeyError: when a joint of ``arm`` is missing, listing the names the message has.
    """
    names = list(msg.name)
    arm_names = arm_joint_names(arm, prefix)
    fingers = finger_joint_names(arm, prefix)
    missing = [n for n in (*arm_names, *fingers) if n not in names]
    if missing:
        raise KeyError(f'joint_states lacks {missing} for arm {arm!r}; it names {names}; '
                       'set the joint name prefix of the station to match the driver')
    index = {n: i for i, n in enumerate(names)}
    position = np.asarray(msg.position, dtype=float)
    velocity = np.asarray(msg.velocity, dtype=float)
    q = np.array([position[index[n]] for n in arm_names])
    dq = (np.array([velocity[index[n]] for n in arm_names]) if velocity.size == len(names)
          else np.zeros(ARM_DOF))
    width = float(position[index[fingers[0]]] + position[index[fingers[1]]])
    return JointState(arm=arm, positions_rad=q, velocities_rad_s=dq, gripper_width_m=width,
                      stamp_s=stamp_to_s(msg.header.stamp))


def joint_states_to_message(states: Sequence[JointState], stamp_s: float,
                            make: MessageFactory, prefix: str | None = None) -> Any:
    """
    Build one ``sensor_msgs/msg/JointState`` for all ``states`` (fingers at width / 2 each).

    :param states: one JointState per arm.
    :param stamp_s: message time, seconds.
    :param make: the message factory.
    :param prefix: joint name prefix (default ``'<arm>/'``).
    """
    names: list[str] = []
    position: list[float] = []
    velocity: list[float] = []
    for state in states:
        names += [*arm_joint_names(state.arm, prefix), *finger_joint_names(state.arm, prefix)]
        half = state.gripper_width_m / 2.0
        position += [float(v) for v in state.positions_rad] + [half, half]
        velocity += [float(v) for v in state.velocities_rad_s] + [0.0, 0.0]
    return make('sensor_msgs/msg/JointState', header=make_header(make, stamp_s, ''), name=names,
                position=np.array(position), velocity=np.array(velocity),
                effort=np.zeros(0))

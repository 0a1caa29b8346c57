"""
The bag topics a ROS driver publishes, rebuilt from what an episode's primitives read.

So that ``ros2 bag play`` of an episode feeds a ``RosStation`` (``replay.launch.py``) the
way the station's driver would:

- ``/joint_states``: one ``sensor_msgs/JointState`` for every arm read so far, in the
  driver's format (``<arm>/joint1`` .. ``joint6`` and the fingers ``joint7``, ``joint8`` at
  half the gripper width each: ``conversions.joint_states``, what the sim node publishes);
- ``/clock``: ``rosgraph_msgs/Clock`` at each sample's station time (it drives the replay's
  ``use_sim_time`` nodes; ``replay.launch.py`` plays without ``--clock``, whose second
  clock at the bag's log time would make time jump);
- ``/tf_static``: ``world`` -> ``<arm>/base_link`` for the arm bases, written once when
  the world opens (the task card and every arm pose look them up).

The messages come from the same ROS-free conversions the nodes use, built with the bag's
rosbags types.
"""

from __future__ import annotations

from collections.abc import Sequence
import threading
from typing import Any

from pyrua_primitives.conversions.interfaces import rosbags_factory
from pyrua_primitives.conversions.joint_states import joint_states_to_message
from pyrua_primitives.conversions.stamps import stamp_fields
from pyrua_primitives.conversions.transforms import matrix_to_transform_stamped
from pyrua_primitives.station import ArmBase, ARMS, JointState

from . import topics

CLOCK = '/clock'
CLOCK_TYPE = 'rosgraph_msgs/msg/Clock'
TF_STATIC = '/tf_static'
BASE_FRAME = '{arm}/base_link'
"""The arm base frames a station's TF names (``RosStationConfig.base_frame``'s default;
the core imports no ``ros/`` module, ``test_driver_topics`` checks they agree)."""
Entry = tuple[str, str, Any]


class DriverTopics:
    """
    Build the driver's messages for a bag from the samples an episode reads.

    :param store: the bag's rosbags typestore.
    """

    def __init__(self, store: Any) -> None:
        self._make = rosbags_factory(store)
        self._arms: dict[str, JointState] = {}
        self._lock = threading.Lock()

    def joint_states(self, state: JointState) -> list[Entry]:
        """Return ``/joint_states`` (every arm read so far) and ``/clock`` at its stamp."""
        with self._lock:
            self._arms[state.arm] = state
            states = [self._arms[arm] for arm in ARMS if arm in self._arms]
        make = self._make
        clock = make(CLOCK_TYPE, clock=make('builtin_interfaces/msg/Time',
                                            **stamp_fields(state.stamp_s)))
        return [(topics.JOINT_STATES, topics.JOINT_STATE,
                 joint_states_to_message(states, state.stamp_s, make)),
                (CLOCK, CLOCK_TYPE, clock)]

    def arm_bases(self, bases: Sequence[ArmBase], stamp_s: float) -> list[Entry]:
        """Return one ``/tf_static`` message with ``world`` -> each arm's base frame."""
        transforms = [matrix_to_transform_stamped(
            base.world_from_base, topics.WORLD_FRAME, BASE_FRAME.format(arm=base.arm),
            stamp_s, self._make) for base in bases]
        return [(TF_STATIC, topics.TF_MESSAGE,
                 self._make(topics.TF_MESSAGE, transforms=transforms))]

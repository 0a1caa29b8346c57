"""
``control_msgs`` payloads: joint trajectories and gripper commands <-> our arrays and results.

A ``FollowJointTrajectory`` goal carries a ``trajectory_msgs/JointTrajectory`` built here;
its result (``error_code``, ``error_string``) and the goal status map to a
``TrajectoryResult``.

Grippers speak one of two ``control_msgs`` actions (``GRIPPER_INTERFACES``):

- ``'parallel'`` (default): ``control_msgs/action/ParallelGripperCommand``, served on Jazzy by
  ros2_controllers' ``parallel_gripper_action_controller``. The goal is a
  ``sensor_msgs/JointState`` naming the gripper joint; its position is that joint's position:
  for the ARX-X5 ``<arm>/joint7``, one finger's travel, i.e. HALF the gap between the pads
  (the other finger mirrors it). The result's ``state`` reports the joint the same way.
- ``'gripper_command'``: ``control_msgs/action/GripperCommand`` (``gripper_action_controller``).
  ``command.position`` and the result's ``position`` are the GAP between the pads, metres.

Everything here speaks pad-to-pad widths in metres; only these functions know the halving.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .fields import MessageFactory
from .joint_states import arm_joint_names, finger_joint_names
from .stamps import make_header, stamp_fields
from ..naming import unknown_name
from ..station import ARM_DOF, GripperResult, TrajectoryResult

STATUS_SUCCEEDED = 4
STATUS_CANCELED = 5
STATUS_ABORTED = 6
"""``action_msgs/GoalStatus`` values used here."""

TRAJECTORY_ERRORS = {
    0: 'successful',
    -1: 'invalid goal',
    -2: 'invalid joints',
    -3: 'old header timestamp',
    -4: 'path tolerance violated',
    -5: 'goal tolerance violated',
}
"""``control_msgs/FollowJointTrajectory`` result error codes."""


def trajectory_to_message(arm: str, positions_rad: np.ndarray, times_s: np.ndarray,
                          make: MessageFactory, prefix: str | None = None) -> Any:
    """
    Build a ``trajectory_msgs/msg/JointTrajectory`` for ``arm`` (stamp 0: start now).

    :raises ValueError: for shapes other than N x 6 and N, or times not strictly increasing.
    """
    q = np.asarray(positions_rad, dtype=float)
    t = np.asarray(times_s, dtype=float).reshape(-1)
    if q.ndim != 2 or q.shape[1] != ARM_DOF or q.shape[0] != t.size or t.size == 0:
        raise ValueError(f'trajectory of {q.shape} positions and {t.size} times vs N x '
                         f'{ARM_DOF} and N (N >= 1)')
    if np.any(np.diff(t) <= 0) or t[0] < 0:
        raise ValueError(f'trajectory times {t.tolist()} vs non-negative and strictly increasing')
    points = [make('trajectory_msgs/msg/JointTrajectoryPoint', positions=row.copy(),
                   velocities=np.zeros(0), accelerations=np.zeros(0), effort=np.zeros(0),
                   time_from_start=make('builtin_interfaces/msg/Duration',
                                        **stamp_fields(float(ts))))
              for row, ts in zip(q, t, strict=True)]
    return make('trajectory_msgs/msg/JointTrajectory', header=make_header(make, 0.0, ''),
                joint_names=list(arm_joint_names(arm, prefix)), points=points)


def trajectory_from_message(msg: Any, arm: str,
                            prefix: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """
    Return (N x 6 positions, N times) of ``arm`` from a ``JointTrajectory``, any joint order.

    :raises KeyError: when the trajectory does not name exactly the six joints of ``arm``.
    """
    names = list(msg.joint_names)
    wanted = arm_joint_names(arm, prefix)
    if sorted(names) != sorted(wanted):
        raise KeyError(f'trajectory joints {names} vs the joints of arm {arm!r}: {list(wanted)}')
    order = [names.index(n) for n in wanted]
    q = np.array([[float(p.positions[i]) for i in order] for p in msg.points]).reshape(-1, ARM_DOF)
    t = np.array([p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 for p in msg.points])
    return q, t


def trajectory_outcome(status: int, error_code: int, error_string: str,
                       final_positions_rad: np.ndarray, duration_s: float) -> TrajectoryResult:
    """Return the ``TrajectoryResult`` of a finished ``FollowJointTrajectory`` goal."""
    if status == STATUS_SUCCEEDED and error_code == 0:
        return TrajectoryResult(True, '', np.asarray(final_positions_rad, float), duration_s)
    if status == STATUS_CANCELED:
        reason = 'cancelled'
    else:
        what = TRAJECTORY_ERRORS.get(error_code, f'error code {error_code}')
        reason = f'controller: {what}' + (f' ({error_string})' if error_string else '')
    return TrajectoryResult(False, reason, np.asarray(final_positions_rad, float), duration_s)


def trajectory_error_code(result: TrajectoryResult) -> tuple[int, str]:
    """Return (error_code, error_string) reporting ``result`` as a trajectory controller does."""
    if result.completed:
        return 0, ''
    if result.duration_s == 0.0:
        return -1, result.reason  # refused before moving (the Station contract)
    return -4, result.reason


GRIPPER_INTERFACES = {
    'parallel': 'ParallelGripperCommand',
    'gripper_command': 'GripperCommand',
}
"""Gripper interface name -> the control_msgs action it speaks."""
DEFAULT_GRIPPER_INTERFACE = 'parallel'
"""The one default of the station's and the sim node's gripper interface (Jazzy's
parallel_gripper_action_controller)."""


CONTROL_MSGS_DEFINITIONS = {
    'control_msgs/msg/GripperCommand': 'float64 position\nfloat64 max_effort\n',
    'control_msgs/action/GripperCommand_Goal': 'control_msgs/GripperCommand command\n',
    'control_msgs/action/GripperCommand_Result': (
        'float64 position\nfloat64 effort\nbool stalled\nbool reached_goal\n'),
    'control_msgs/action/ParallelGripperCommand_Goal': 'sensor_msgs/JointState command\n',
    'control_msgs/action/ParallelGripperCommand_Result': (
        'sensor_msgs/JointState state\nbool stalled\nbool reached_goal\n'),
}
"""The Jazzy ``control_msgs`` gripper definitions (comments dropped), for tools without the
control_msgs package: ``rosbags`` registers them with ``get_types_from_msg``."""


def check_gripper_interface(interface: str) -> str:
    """
    Return ``interface`` if it names a gripper interface.

    :raises ValueError: listing the valid names.
    """
    if interface not in GRIPPER_INTERFACES:
        raise ValueError(unknown_name('gripper interface', interface, GRIPPER_INTERFACES))
    return interface


def gripper_joint(arm: str, prefix: str | None = None) -> str:
    """Return the joint a parallel gripper controller commands: one finger (``joint7``)."""
    return finger_joint_names(arm, prefix)[0]


def gripper_goal_fields(interface: str, arm: str, width_m: float, max_effort_n: float,
                        make: MessageFactory, prefix: str | None = None) -> dict[str, Any]:
    """
    Return the goal fields that drive ``arm``'s gripper to a pad-to-pad width.

    :param interface: one of ``GRIPPER_INTERFACES``.
    :param arm: ``'left'`` or ``'right'``.
    :param width_m: the gap between the pads, metres.
    :param max_effort_n: the effort limit, newtons.
    :param make: the message factory.
    :param prefix: joint name prefix (default ``'<arm>/'``).
    """
    if check_gripper_interface(interface) == 'gripper_command':
        return {'command': make('control_msgs/msg/GripperCommand', position=float(width_m),
                                max_effort=float(max_effort_n))}
    return {'command': make('sensor_msgs/msg/JointState', header=make_header(make, 0.0, ''),
                            name=[gripper_joint(arm, prefix)],
                            position=np.array([float(width_m) / 2.0]),
                            velocity=np.zeros(0), effort=np.array([float(max_effort_n)]))}


def gripper_goal_width(interface: str, goal: Any) -> float:
    """
    Return the pad-to-pad width a received gripper goal asks for (the server's side).

    :raises ValueError: for a parallel goal without exactly one joint position.
    """
    if check_gripper_interface(interface) == 'gripper_command':
        return float(goal.command.position)
    positions = list(goal.command.position)
    if len(positions) != 1:
        raise ValueError(f'ParallelGripperCommand goal with {len(positions)} positions vs 1 '
                         '(the finger joint, metres); send one position')
    return 2.0 * float(positions[0])


def gripper_result_width(interface: str, result: Any) -> float:
    """Return the pad-to-pad width a gripper result reports (NaN when it reports none)."""
    if check_gripper_interface(interface) == 'gripper_command':
        return float(result.position)
    positions = list(result.state.position)
    return 2.0 * float(positions[0]) if positions else float('nan')


def gripper_outcome(status: int, width_m: float, stalled: bool, reached_goal: bool,
                    duration_s: float) -> GripperResult:
    """Return the station ``GripperResult`` of a finished gripper goal (width in metres)."""
    width = float(width_m)
    if status == STATUS_CANCELED:
        return GripperResult(False, 'cancelled', width, bool(stalled), duration_s)
    if status != STATUS_SUCCEEDED and not stalled:
        return GripperResult(False, 'gripper controller aborted the command', width, False,
                             duration_s)
    reason = '' if reached_goal else ('stalled on an object' if stalled else 'not reached')
    return GripperResult(bool(reached_goal), reason, width, bool(stalled), duration_s)


def gripper_result_fields(interface: str, arm: str, result: GripperResult,
                          make: MessageFactory, prefix: str | None = None) -> dict[str, Any]:
    """Return the gripper action's result fields reporting a station ``GripperResult``."""
    flags = {'stalled': bool(result.stalled), 'reached_goal': bool(result.reached)}
    if check_gripper_interface(interface) == 'gripper_command':
        return {'position': float(result.width_m), 'effort': 0.0, **flags}
    state = make('sensor_msgs/msg/JointState', header=make_header(make, 0.0, ''),
                 name=[gripper_joint(arm, prefix)],
                 position=np.array([float(result.width_m) / 2.0]), velocity=np.zeros(0),
                 effort=np.zeros(0))
    return {'state': state, **flags}

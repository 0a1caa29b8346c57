"""
``control_msgs`` payloads: joint trajectories and gripper commands <-> our arrays and results.

A ``FollowJointTrajectory`` goal carries a ``trajectory_msgs/JointTrajectory`` built here;
its result (``error_code``, ``error_string``) and the goal status map to a
``TrajectoryResult``. A ``GripperCommand`` position is one finger's travel (joint7, metres),
half the width between the pads, as the ros2_control parallel gripper controller expects for
the ARX-X5's mirrored fingers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .fields import MessageFactory
from .joint_states import arm_joint_names
from .stamps import make_header, stamp_fields
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


def gripper_position(width_m: float) -> float:
    """Return the GripperCommand position (one finger's travel) for a pad-to-pad width."""
    return width_m / 2.0


def gripper_outcome(status: int, position: float, stalled: bool, reached_goal: bool,
                    duration_s: float) -> GripperResult:
    """Return the station ``GripperResult`` of a finished ``GripperCommand`` goal."""
    width = 2.0 * float(position)
    if status == STATUS_CANCELED:
        return GripperResult(False, 'cancelled', width, bool(stalled), duration_s)
    if status != STATUS_SUCCEEDED and not stalled:
        return GripperResult(False, 'gripper controller aborted the command', width, False,
                             duration_s)
    reason = '' if reached_goal else ('stalled on an object' if stalled else 'not reached')
    return GripperResult(bool(reached_goal), reason, width, bool(stalled), duration_s)


def gripper_result_fields(result: GripperResult) -> dict[str, Any]:
    """Return ``GripperCommand`` result fields reporting a station ``GripperResult``."""
    return {'position': gripper_position(result.width_m), 'effort': 0.0,
            'stalled': bool(result.stalled), 'reached_goal': bool(result.reached)}

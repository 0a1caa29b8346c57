"""
Optional motion backend for a real station: plan with moveit_py, execute through MoveIt.

Selected with ``station.motion_backend: moveit``. It plans a collision-aware path to the
LAST waypoint of a requested trajectory (the intermediate waypoints are not followed) and
executes it with ``MoveItPy.execute``, which blocks until the motion ends: a cancel takes
effect when it returns. MoveIt's parameters (robot description, kinematics, pipelines,
moveit_cpp) come from the launch file (reference ``ros2.md`` §7).
"""

from __future__ import annotations

import time

from moveit.core.robot_state import RobotState
from moveit.planning import MoveItPy
import numpy as np
from pyrua_primitives.station import TrajectoryResult


class MoveItMotion:
    """
    Joint-space moves planned and executed by MoveIt.

    :param group_template: planning group per arm, e.g. ``'{arm}_arm'``.
    :param node_name: name of MoveIt's own (rclcpp) node; its parameters use this name.
    """

    def __init__(self, group_template: str, node_name: str = 'pyrua_moveit') -> None:
        self._group = group_template
        self._robot = MoveItPy(node_name=node_name)

    def move_joints(self, arm: str, positions_rad: np.ndarray) -> TrajectoryResult:
        """Plan from the current state to ``positions_rad`` and execute; report the outcome."""
        group = self._group.format(arm=arm)
        target = np.asarray(positions_rad, dtype=float)
        component = self._robot.get_planning_component(group)
        component.set_start_state_to_current_state()
        state = RobotState(self._robot.get_robot_model())
        state.set_joint_group_positions(group, target)
        component.set_goal_state(robot_state=state)
        started = time.monotonic()
        plan = component.plan()
        if not plan:
            return TrajectoryResult(False, f'MoveIt found no plan for group {group!r} '
                                    f'(error code {plan.error_code.val})', target, 0.0)
        self._robot.execute(plan.trajectory, controllers=[])
        return TrajectoryResult(True, '', target, time.monotonic() - started)

    def shutdown(self) -> None:
        """Shut MoveIt's node down."""
        self._robot.shutdown()

"""
Real rclpy (runs where ROS 2 is installed, e.g. the docker/ image; skipped here otherwise).

A goal goes from the agent's ActionTransport to the primitives node's action server and
back: arguments, feedback, cancel from the caller reaching the running primitive, and a
primitive's misuse error re-raised on the caller's side.
"""

import threading

import pytest

rclpy = pytest.importorskip('rclpy', reason='needs ROS 2 (rclpy): run in the docker/ image')
pytest.importorskip('pyrua_msgs.action', reason='needs the built pyrua_msgs (colcon build)')

from pyrua_agent.ros.action_transport import ActionTransport  # noqa: E402, I100
from pyrua_primitives.results import GripperResult, MoveResult  # noqa: E402
from pyrua_primitives.ros.primitives_node import PrimitivesNode  # noqa: E402
from rclpy.executors import MultiThreadedExecutor  # noqa: E402
from rclpy.node import Node  # noqa: E402

pytestmark = pytest.mark.ros


class _Arm:
    """Primitives with observable effects standing in for the station-backed library."""

    def __init__(self):
        self.started = threading.Event()

    def move_to(self, arm, xyz, heading=None, *, descend=False, path='line', cancel=None,
                feedback=None):
        feedback(0.5)
        self.started.set()
        stopped = cancel.wait(10.0)
        return MoveResult(reached=not stopped, reason=f'cancelled: {cancel.reason}'
                          if stopped else '', arm=arm, target_m=tuple(xyz),
                          final_m=tuple(xyz), final_heading_rad=0.0, error_m=0.0,
                          duration_s=0.1)

    def close_gripper(self, arm, *, cancel=None):
        if arm not in ('left', 'right'):
            raise ValueError(f"unknown arm {arm!r}; valid: 'left', 'right'")
        return GripperResult(held=True, reason='', arm=arm, action='close', width_m=0.03,
                             commanded_width_m=0.0)


@pytest.fixture
def transport():
    rclpy.init()
    arm = _Arm()
    server = PrimitivesNode()
    server._primitives = {'move_to': arm.move_to, 'close_gripper': arm.close_gripper}
    client = Node('test_agent')
    executor = MultiThreadedExecutor(num_threads=4)
    executor.add_node(server)
    executor.add_node(client)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    try:
        yield ActionTransport(client, server._primitives, server._group, 10.0), arm
    finally:
        executor.shutdown()
        server.destroy()
        client.destroy_node()
        rclpy.try_shutdown()
        spinner.join(5.0)


def test_cancel_reaches_the_running_primitive_and_feedback_arrives(transport):
    actions, arm = transport
    feedback = []
    goal = actions.send_goal('move_to', ('left', [0.1, 0.0, 0.9]), {'descend': True},
                             feedback=feedback.append)
    assert arm.started.wait(10.0)
    goal.cancel('watchdog')
    assert goal.wait(10.0)
    result = goal.result()
    assert result.reached is False and result.reason.startswith('cancelled')
    assert result.target_m == (0.1, 0.0, 0.9)
    assert feedback and feedback[0]['fraction'] == 0.5


def test_a_primitive_error_is_reraised_by_the_caller(transport):
    actions, _arm = transport
    goal = actions.send_goal('close_gripper', ('lft',), {})
    assert goal.wait(10.0)
    with pytest.raises(ValueError, match="unknown arm 'lft'"):
        goal.result()
    ok = actions.send_goal('close_gripper', ('right',), {})
    assert ok.wait(10.0) and ok.result().held is True

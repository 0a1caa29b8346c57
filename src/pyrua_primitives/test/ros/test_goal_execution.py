"""One received goal run on a primitive: arguments, cancel token, feedback, errors."""

import math
import threading

from pyrua_primitives.cancel import CancelToken
from pyrua_primitives.results import GripperResult, MoveResult
from pyrua_primitives.ros.goal_execution import execute_goal


class _Arm:
    """Primitives with observable effects, as a station-backed library's would have."""

    def __init__(self):
        self.calls = []
        self.started = threading.Event()

    def move_to(self, arm, xyz, heading=None, *, descend=False, max_tilt=0.0, path='line',
                relative=False, cancel=None, feedback=None):
        self.calls.append((arm, xyz, heading, descend, path))
        feedback(0.5)
        self.started.set()
        stopped = cancel.wait(2.0)
        return MoveResult(reached=not stopped, reason='cancelled' if stopped else '', arm=arm,
                          target_m=xyz, final_m=xyz, final_heading_rad=0.0, error_m=0.0,
                          duration_s=0.1)

    def close_gripper(self, arm, *, cancel=None):
        if arm not in ('left', 'right'):
            raise ValueError(f"unknown arm {arm!r}; valid: 'left', 'right'")
        return GripperResult(held=True, reason='', arm=arm, action='close', width_m=0.03,
                             commanded_width_m=0.0)


def _goal(make, **fields):
    return make('pyrua_msgs/action/MoveTo_Goal', **{
        'arm': 'left', 'xyz': [0.1, 0.2, 0.9], 'heading': math.nan, 'descend': True,
        'max_tilt': 0.0, 'path': 'joint', 'relative': False, **fields})


def test_goal_runs_the_primitive_with_its_arguments_and_feedback(make):
    arm, token, feedback = _Arm(), CancelToken(), []
    token.cancel('already')
    import numpy as np

    outcome = execute_goal('MoveTo', _goal(make, xyz=np.array([0.1, 0.2, 0.9])),
                           {'move_to': arm.move_to}, token, feedback.append)
    assert arm.calls == [('left', (0.1, 0.2, 0.9), None, True, 'joint')]
    assert outcome.error == '' and outcome.value.reason == 'cancelled'
    assert feedback[0]['fraction'] == 0.5 and feedback[0]['elapsed_s'] >= 0.0


def test_cancel_reaches_a_running_primitive(make):
    import numpy as np

    arm, token = _Arm(), CancelToken()
    box = []
    runner = threading.Thread(target=lambda: box.append(execute_goal(
        'MoveTo', _goal(make, xyz=np.array([0.1, 0.2, 0.9])), {'move_to': arm.move_to},
        token, lambda _f: None)))
    runner.start()
    assert arm.started.wait(2.0)
    token.cancel('client')
    runner.join(2.0)
    assert box[0].value.reached is False and box[0].value.reason == 'cancelled'


def test_misuse_becomes_the_aborted_reason(make):
    goal = make('pyrua_msgs/action/Gripper_Goal', arm='lft', action='close', width=math.nan)
    outcome = execute_goal('Gripper', goal, {'close_gripper': _Arm().close_gripper},
                           CancelToken(), lambda _f: None)
    assert outcome.value is None and outcome.error.startswith("ValueError: unknown arm 'lft'")


def test_bad_goal_and_missing_primitive_are_aborted_with_reasons(make):
    bad = make('pyrua_msgs/action/Gripper_Goal', arm='left', action='squeeze', width=math.nan)
    outcome = execute_goal('Gripper', bad, {}, CancelToken(), lambda _f: None)
    assert "unknown gripper action 'squeeze'" in outcome.error
    good = make('pyrua_msgs/action/Gripper_Goal', arm='left', action='close', width=math.nan)
    outcome = execute_goal('Gripper', good, {}, CancelToken(), lambda _f: None)
    assert outcome.error.startswith('PrimitiveError: unknown primitive on this node')

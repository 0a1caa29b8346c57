"""
The gripper and policy primitives of ``PrimitiveLibrary``: open, close (grasp check), VLA.

Each function here is a method of ``PrimitiveLibrary`` (``self`` is the library; the class
body in ``library.py`` binds them), so its signature and docstring are the model's API
reference. ``close_gripper`` reports a grasp by the width check: the fingers stopped on
something instead of closing fully.
"""

from __future__ import annotations

from collections.abc import Callable

from .cancel import CancelToken
from .registry import primitive
from .results import GripperResult
from .vla import run_configured_rollout, VlaResult

MIN_OPEN_WIDTH_M = 0.01


@primitive(acting=True, action='Gripper', goal={'action': 'open'})
def open_gripper(self, arm: str, width: float | None = None, *,
                 cancel: CancelToken | None = None) -> GripperResult:
    """
    Open an arm's gripper.

    :param arm: 'left' or 'right'.
    :param width: opening between the finger pads in metres, from 0.01 up to the
        station facts' maximum; default: fully open.
    :returns: GripperResult with width_m, the measured opening.
    """
    self._arm(arm)
    full = self.station.joint_limits(arm).gripper_max_width_m
    commanded = full if width is None else width
    if isinstance(commanded, bool) or not isinstance(commanded, (int, float)) \
            or not MIN_OPEN_WIDTH_M <= commanded <= full:
        raise ValueError(f'width={width!r} vs allowed [{MIN_OPEN_WIDTH_M:.3f}, {full:.3f}] m; '
                         'omit it to open fully')
    self._closed[arm] = False
    outcome = self.station.command_gripper(arm, float(commanded), cancel)
    reason = '' if outcome.reached else f'stopped at {outcome.width_m * 1000:.1f} mm ' \
        f'({outcome.reason or "blocked"})'
    return GripperResult(held=False, reason=reason, arm=arm, action='open',
                         width_m=float(outcome.width_m), commanded_width_m=float(commanded))


@primitive(acting=True, action='Gripper', goal={'action': 'close'})
def close_gripper(self, arm: str, *, cancel: CancelToken | None = None) -> GripperResult:
    """
    Close an arm's gripper and check whether it holds something (grasp width check).

    :param arm: 'left' or 'right'.
    :returns: GripperResult with held (True when the fingers stopped on an object
        instead of closing fully, at this moment: robo.pose(arm).held checks again) and
        width_m (the measured opening: about the object's width when held, near 0 when
        nothing is between the fingers).
    """
    self._arm(arm)
    self._closed[arm] = True
    outcome = self.station.command_gripper(arm, 0.0, cancel)
    width = float(outcome.width_m)
    held = width > self.config.min_held_width_m
    reason = '' if held else (f'nothing held: width {width * 1000:.1f} mm <= '
                              f'{self.config.min_held_width_m * 1000:.1f} mm')
    if not held and outcome.reason and not outcome.stalled:
        reason = f'{reason}; {outcome.reason}'
    return GripperResult(held=held, reason=reason, arm=arm, action='close',
                         width_m=width, commanded_width_m=0.0)


@primitive(acting=True, action='VlaRollout')
def vla(self, instruction: str, arm: str, steps: int = 50, *,
        cancel: CancelToken | None = None,
        feedback: Callable[[int], None] | None = None) -> VlaResult:
    """
    Let a vision-language-action policy drive one arm for a number of control steps.

    The policy sees only the head camera, this arm's wrist camera, this arm's joint
    angles and gripper opening, and the instruction. Each step executes one action
    (joint targets and a gripper opening) at the policy's control rate (15 Hz by
    default); every motion passes the safety gate before the arm moves.

    :param instruction: what the policy should do, in words, e.g. 'pick up the red block'.
    :param arm: 'left' or 'right'.
    :param steps: actions to execute, 1 to 1000 (50 steps take about 3.3 s at 15 Hz).
    :returns: VlaResult with completed (True when all steps ran; the task may still be
        unfinished: check with robo.locate or robo.show), steps_run, stop_reason and
        reason. stop_reason is 'steps' (all ran), 'cancelled', 'policy_error' (no VLA
        configured, the policy server is down or too slow, or it sent a malformed
        action chunk) or 'unsafe' (the safety gate refused a motion before it ran, or
        the arm was stopped short of it). The arm stays where the rollout stopped.
    """
    return run_configured_rollout(self.station, instruction, arm, steps,
                                  config=self.config.vla, safety=self.config.safety,
                                  cancel=cancel, feedback=feedback, capture=self._capture)

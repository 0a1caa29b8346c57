"""
The VLA rollout: observe, ask the policy for an action chunk, execute it through the gate.

Each round builds an observation from the Station (``observation.py``), sends it to the
policy and checks the reply: an ``H x 7`` chunk of absolute joint targets ``joint1..joint6``
in radians plus the gripper opening normalised to 0..1 (0 closed, 1 fully open). At most
``replan_steps`` actions of it run, one per control period (``1 / control_hz`` s), sent to
``Station.follow_joint_trajectory`` ``segment_steps`` at a time; every segment passes the
safety gate first (``check_trajectory``, the other arm held where it is) and the cancel
token is checked between segments. A gripper change larger than ``gripper_deadband`` is
commanded when the joints of its step have been reached.

Stop reasons: ``'steps'`` (all requested steps ran; the only completed one), ``'cancelled'``,
``'policy_error'`` (endpoint down or too slow, error reply, malformed chunk) and ``'unsafe'``
(the gate refused a segment, or the station stopped the arm short of it). A step is one
executed action; ``steps_run`` counts the steps whose segment finished.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
import logging

import numpy as np

from .client import PolicyClient, PolicyError, WebsocketPolicyClient
from .config import VlaConfig
from .observation import build_observation, Capture, normalised_gripper
from ..cancel import CancelToken
from ..kinematics.path import JointTrajectory
from ..motion import MotionScene
from ..safety import check_trajectory, SafetyConfig
from ..station import ARM_DOF, check_arm, Station

_LOG = logging.getLogger(__name__)

STOP_REASONS: tuple[str, ...] = ('cancelled', 'policy_error', 'steps', 'unsafe')
ACTION_SIZE = ARM_DOF + 1


@dataclass(frozen=True, slots=True)
class VlaResult:
    """Outcome of a rollout: completed first, why not, then what ran (mirrors VlaRollout)."""

    completed: bool
    reason: str
    arm: str
    instruction: str
    steps_run: int
    stop_reason: str
    duration_s: float

    def __repr__(self) -> str:
        if self.completed:
            said = self.instruction if len(self.instruction) <= 40 \
                else f'{self.instruction[:37]}...'
            return (f'VlaResult(completed, {self.arm}, {self.steps_run} steps, '
                    f'{self.duration_s:.2f} s, {said!r})')
        return (f'VlaResult(completed=False, {self.arm}, {self.stop_reason} after '
                f'{self.steps_run} steps, reason={self.reason!r})')


def check_chunk(reply: dict, actions_key: str) -> tuple[np.ndarray | None, str]:
    """
    Return the action chunk of a policy reply as an H x 7 float array, or why it is refused.

    :param reply: the policy's reply map.
    :param actions_key: the key of the chunk in the reply.
    :returns: (chunk, '') or (None, what is wrong with the reply).
    """
    if actions_key not in reply:
        keys = sorted(str(k) for k in reply)
        return None, (f'reply has no {actions_key!r} vs an action chunk (keys: {keys}); serve '
                      'a policy that returns one or set vla.actions_key')
    try:
        chunk = np.asarray(reply[actions_key], dtype=float)
    except (TypeError, ValueError):
        return None, (f'reply {actions_key!r} is a {type(reply[actions_key]).__name__} vs a '
                      'numeric H x 7 array')
    if chunk.ndim != 2 or chunk.shape[0] < 1 or chunk.shape[1] != ACTION_SIZE:
        return None, (f'action chunk of shape {chunk.shape} vs (H, 7): 6 absolute joint '
                      'targets in rad + gripper 0..1; serve a single-arm joint-space policy')
    if not np.all(np.isfinite(chunk)):
        return None, 'action chunk has NaN or infinite values vs finite'
    gripper = chunk[:, ARM_DOF]
    bad = np.flatnonzero((gripper < 0.0) | (gripper > 1.0))
    if bad.size:
        k = int(bad[0])
        return None, (f'gripper value {gripper[k]:.3f} at action {k} vs [0, 1] (normalised '
                      'opening, 1 = fully open); rescale the policy output')
    return chunk, ''


def _segments(actions: np.ndarray, commanded: float, config: VlaConfig) -> list:
    """Split actions into (joint targets n x 6, gripper target or None) segments."""
    out, start = [], 0
    for i, gripper in enumerate(actions[:, ARM_DOF]):
        change = abs(float(gripper) - commanded) > config.gripper_deadband
        if change or i + 1 - start == config.segment_steps or i + 1 == len(actions):
            out.append((actions[start:i + 1, :ARM_DOF], float(gripper) if change else None))
            commanded = float(gripper) if change else commanded
            start = i + 1
    return out


def _move(station: Station, arm: str, targets: np.ndarray, config: VlaConfig,
          safety: SafetyConfig | None, cancel: CancelToken | None) -> tuple[str, str]:
    """Gate-check and execute one segment; return ('', '') or (stop reason, why)."""
    scene = MotionScene.from_station(station, arm)
    times = np.arange(1, len(targets) + 1) / config.control_hz
    trajectory = JointTrajectory(np.vstack([scene.q_rad, targets]), np.append(0.0, times))
    verdict = check_trajectory(
        trajectory, world_from_base=scene.world_from_base,
        other_world_from_base=scene.other_world_from_base, other_q_rad=scene.other_q_rad,
        table_z_m=scene.table_z_m, descend=config.descend, config=safety,
    )
    if not verdict.safe:
        return 'unsafe', f'refused by the safety gate: {verdict.reason}'
    outcome = station.follow_joint_trajectory(arm, targets, times, cancel)
    if outcome.completed:
        return '', ''
    if cancel is not None and cancel.cancelled:
        return 'cancelled', outcome.reason
    return 'unsafe', f'the station stopped the arm: {outcome.reason}'


def run_rollout(station: Station, policy: PolicyClient, instruction: str, arm: str,
                steps: int, *, config: VlaConfig, safety: SafetyConfig | None = None,
                cancel: CancelToken | None = None,
                feedback: Callable[[int], None] | None = None,
                capture: Capture | None = None) -> VlaResult:
    """
    Run a policy on one arm for ``steps`` control steps, or until it must stop.

    :param station: the hardware boundary (the only source of observations).
    :param policy: a connected PolicyClient.
    :param instruction: the prompt, in words.
    :param arm: 'left' or 'right'.
    :param steps: actions to execute, 1..``config.max_steps``.
    :param config: observation layout, rate and chunking.
    :param safety: gate thresholds (None: SafetyConfig defaults).
    :param cancel: stops the rollout between segments (and the motion within one).
    :param feedback: called with the number of steps run after each segment.
    :param capture: camera capture function (default ``station.capture``).
    :returns: a VlaResult; ``completed`` only when all steps ran.
    :raises ValueError: for an unknown arm, an empty instruction or ``steps`` out of range.
    """
    check_rollout_arguments(instruction, arm, steps, config)
    max_width = station.joint_limits(arm).gripper_max_width_m
    commanded = normalised_gripper(station.joint_state(arm).gripper_width_m, max_width)
    start_s, done = station.time_s(), 0

    def finish(stop: str, reason: str) -> VlaResult:
        return VlaResult(stop == 'steps', reason, arm, instruction, done, stop,
                         round(station.time_s() - start_s, 6))

    def cancelled() -> VlaResult:
        return finish('cancelled', f'cancelled: {cancel.reason} after {done} of {steps} steps')

    while done < steps:
        if cancel is not None and cancel.cancelled:
            return cancelled()
        observation = build_observation(station, arm, instruction, config, capture)
        try:
            reply = policy.infer(observation)
        except PolicyError as exc:
            return finish('policy_error', f'at step {done + 1}: {exc}')
        chunk, why = check_chunk(reply, config.actions_key)
        if chunk is None:
            return finish('policy_error', f'at step {done + 1}: {why}')
        actions = chunk[:min(len(chunk), config.replan_steps, steps - done)]
        for targets, gripper in _segments(actions, commanded, config):
            if cancel is not None and cancel.cancelled:
                return cancelled()
            stop, why = _move(station, arm, targets, config, safety, cancel)
            if stop == 'cancelled':
                return cancelled()
            if stop:
                # The gate numbers waypoints from 1 within the segment: waypoint k = step done+k.
                return finish(stop, f'in steps {done + 1}-{done + len(targets)}: {why}')
            done += len(targets)
            if feedback is not None:
                feedback(done)
            if gripper is not None:
                outcome = station.command_gripper(arm, gripper * max_width, cancel)
                commanded = gripper
                if not outcome.reached and not outcome.stalled:
                    _LOG.info('gripper at step %d: %s', done, outcome.reason)
    return finish('steps', '')


def run_configured_rollout(station: Station, instruction: str, arm: str, steps: int, *,
                           config: VlaConfig, safety: SafetyConfig | None = None,
                           cancel: CancelToken | None = None,
                           feedback: Callable[[int], None] | None = None,
                           capture: Capture | None = None) -> VlaResult:
    """
    Connect to ``config.endpoint`` and run a rollout; a missing or dead endpoint is a result.

    Parameters as ``run_rollout``.

    :returns: a VlaResult; with no endpoint configured or a server that cannot be reached:
        ``completed=False``, ``stop_reason='policy_error'``, 0 steps and the reason.
    :raises ValueError: for an unknown arm, an empty instruction or ``steps`` out of range.
    """
    check_rollout_arguments(instruction, arm, steps, config)
    if not config.endpoint:
        return VlaResult(False, (
            "no VLA policy configured (vla.endpoint is '' vs 'host:port'); set "
            'library.vla.endpoint to an openpi-compatible policy server'), arm, instruction, 0,
            'policy_error', 0.0)
    client = WebsocketPolicyClient.from_config(config)
    try:
        client.connect()
    except PolicyError as exc:
        return VlaResult(False, str(exc), arm, instruction, 0, 'policy_error', 0.0)
    try:
        return run_rollout(station, client, instruction, arm, steps, config=config,
                           safety=safety, cancel=cancel, feedback=feedback, capture=capture)
    finally:
        client.close()


def check_rollout_arguments(instruction: str, arm: str, steps: int, config: VlaConfig) -> None:
    """
    Refuse misuse of a rollout call.

    :raises TypeError: for a non-string instruction or non-integer steps.
    :raises ValueError: for an unknown arm, an empty instruction or steps out of range.
    """
    check_arm(arm)
    if not isinstance(instruction, str):
        raise TypeError(f'instruction must be a string like "pick up the red block", got '
                        f'{instruction!r}')
    if not instruction.strip():
        raise ValueError('instruction is empty vs a sentence; say what the policy should do')
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f'steps must be an integer count, got {steps!r}')
    if not 1 <= steps <= config.max_steps:
        raise ValueError(f'steps={steps} vs allowed [1, {config.max_steps}]; run a shorter '
                         'rollout and check the result between rollouts')

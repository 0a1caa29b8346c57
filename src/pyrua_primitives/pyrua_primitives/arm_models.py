"""
How a station's arm moves: the kinematic model the library plans with, carried per station.

A station says which model its arm has: an ``arm_model`` attribute (a callable that takes
the station and the library's motion and safety settings), else a ``CartesianArm`` station
plans its own motions (``StationPlannedArm``), else the arm is an ARX-X5 moved by joint
trajectories (``ArxX5Arm``: the only place that couples the library to the ARX-X5
kinematics). The library, the station facts and ``robo.station_facts()`` read the arm through this
one seam, never by testing the station's type themselves.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from .cancel import CancelToken
from .kinematics import arx_x5
from .kinematics.forward import tcp_pose
from .kinematics.orientation import closing_heading_rad, top_down_rotation
from .kinematics.top_down import planar_shapes
from .motion import MotionConfig, MotionScene, plan_joint_move, plan_move, plan_reach
from .safety import check_tcp_target, SafetyConfig
from .station import CartesianArm, Station, TrajectoryResult

Motion = TrajectoryResult | str
"""What a move gives: the executed motion, or the reason it was refused before moving."""

_REACH_STEP_M = 0.005
_REACH_MAX_M = 0.9


class ArmModel(Protocol):
    """
    One station's arm as the library drives it (every pose 4x4, world frame, metres).

    ``fingertip_beyond_tcp_m`` is how far the finger tips reach beyond the TCP (the point
    between the pads) along the approach axis.
    """

    fingertip_beyond_tcp_m: float

    def tcp_pose(self, arm: str, positions_rad: np.ndarray) -> np.ndarray:
        """Return the TCP pose of ``arm`` at the measured joints ``positions_rad``."""
        ...

    def home_tcp_pose(self, arm: str) -> np.ndarray:
        """Return the TCP pose of ``arm``'s ready pose."""
        ...

    def move(self, arm: str, target: np.ndarray, heading: float | None, *, descend: bool,
             max_tilt: float, path: str, cancel: CancelToken | None) -> Motion:
        """Move the TCP of ``arm`` top-down to ``target`` (``robo.move_to``'s rules)."""
        ...

    def reach(self, arm: str, target: np.ndarray, heading: float | None, *, descend: bool,
              max_tilt: float) -> tuple[str, float]:
        """Return (refusal reason or '', tilt) for a TCP at ``target``, without moving."""
        ...

    def home(self, arm: str, cancel: CancelToken | None) -> tuple[np.ndarray, Motion]:
        """Move ``arm`` to its ready pose; return the TCP target and the motion."""
        ...

    def reach_band_m(self, arm: str, height_above_table_m: float) -> tuple[float, float] | None:
        """Return the distances from the base a top-down TCP reaches at this height."""
        ...


class ArxX5Arm:
    """
    An ARX-X5 arm: planned here with its kinematics, moved by joint trajectories.

    :param station: the Station (its mounting, joints and table height).
    :param motion: planning settings.
    :param safety: the safety gate's thresholds.
    """

    plans_itself = False
    fingertip_beyond_tcp_m = arx_x5.FINGERTIP_BEYOND_TCP_M

    def __init__(self, station: Station, motion: MotionConfig, safety: SafetyConfig) -> None:
        self.station, self.motion, self.safety = station, motion, safety

    def _base(self, arm: str) -> np.ndarray:
        return self.station.arm_base(arm).world_from_base

    def tcp_pose(self, arm: str, positions_rad: np.ndarray) -> np.ndarray:
        """Return the forward kinematics of ``positions_rad`` on ``arm``'s mounting."""
        return tcp_pose(positions_rad, self._base(arm))

    def home_tcp_pose(self, arm: str) -> np.ndarray:
        """Return the TCP pose of the station's calibrated ready joints."""
        return self.tcp_pose(arm, self.station.home_positions_rad(arm))

    def _run(self, arm: str, plan, cancel: CancelToken | None) -> Motion:
        if not plan.planned:
            return plan.reason
        positions, times = plan.trajectory.station_waypoints()
        return self.station.follow_joint_trajectory(arm, positions, times, cancel)

    def move(self, arm: str, target: np.ndarray, heading: float | None, *, descend: bool,
             max_tilt: float, path: str, cancel: CancelToken | None) -> Motion:
        """Plan a checked path to ``target`` and follow it (see ``motion.plan_move``)."""
        scene = MotionScene.from_station(self.station, arm)
        plan = plan_move(scene, target, heading, descend=descend, path=path,
                         max_tilt_rad=float(max_tilt), motion=self.motion, safety=self.safety)
        return self._run(arm, plan, cancel)

    def reach(self, arm: str, target: np.ndarray, heading: float | None, *, descend: bool,
              max_tilt: float) -> tuple[str, float]:
        """Check the goal pose as ``move`` would find it (see ``motion.plan_reach``)."""
        scene = MotionScene.from_station(self.station, arm)
        plan = plan_reach(scene, target, heading, descend=descend,
                          max_tilt_rad=float(max_tilt), safety=self.safety)
        return ('' if plan.planned else plan.reason), float(plan.tilt_rad)

    def home(self, arm: str, cancel: CancelToken | None) -> tuple[np.ndarray, Motion]:
        """Plan a joint-space move to the ready joints and follow it."""
        home_q = self.station.home_positions_rad(arm)
        target = self.tcp_pose(arm, home_q)[:3, 3]
        scene = MotionScene.from_station(self.station, arm)
        plan = plan_joint_move(scene, home_q, motion=self.motion, safety=self.safety)
        return target, self._run(arm, plan, cancel)

    def reach_band_m(self, arm: str, height_above_table_m: float) -> tuple[float, float] | None:
        """Return the band (5 mm steps) where a top-down TCP has a shape inside the limits."""
        height = (self.station.table_height_m() + height_above_table_m
                  - float(self._base(arm)[2, 3]))
        distances = [d for d in np.arange(0.0, _REACH_MAX_M, _REACH_STEP_M)
                     if planar_shapes(float(d), height)]
        return (float(min(distances)), float(max(distances))) if distances else None


class StationPlannedArm:
    """
    An arm that plans and moves itself (a ``CartesianArm`` station, e.g. LIBERO's Panda).

    Only the safety gate's table rules are checked here; the station's controller refuses
    what its own kinematics cannot reach. The finger-tip offset is the station's
    ``fingertip_beyond_tcp_m`` (its TCP calibration).
    """

    plans_itself = True

    def __init__(self, station: Station, motion: MotionConfig, safety: SafetyConfig) -> None:
        self.station, self.safety = station, safety
        self.fingertip_beyond_tcp_m = float(station.fingertip_beyond_tcp_m)

    def tcp_pose(self, arm: str, positions_rad: np.ndarray) -> np.ndarray:
        """Return the station's measured TCP pose (it knows its own kinematics)."""
        return self.station.tcp_pose(arm)

    def home_tcp_pose(self, arm: str) -> np.ndarray:
        """Return the station's ready TCP pose."""
        return self.station.home_tcp_pose(arm)

    def _gate(self, arm: str, target: np.ndarray, descend: bool) -> str:
        return check_tcp_target(self.station.tcp_pose(arm)[:3, 3], target,
                                self.station.table_height_m(), descend=descend,
                                config=self.safety,
                                fingertip_beyond_tcp_m=self.fingertip_beyond_tcp_m)

    def move(self, arm: str, target: np.ndarray, heading: float | None, *, descend: bool,
             max_tilt: float, path: str, cancel: CancelToken | None) -> Motion:
        """Check the table rules, then hand the station a top-down TCP pose."""
        if path not in ('joint', 'line'):
            raise ValueError(f"path={path!r} vs 'line' or 'joint'")
        reason = self._gate(arm, target, descend)
        if reason:
            return reason
        now = closing_heading_rad(self.station.tcp_pose(arm)[:3, :3])
        if heading is None:
            heading = now
        # h and h + pi close the same way: turn the wrist the shorter way.
        heading = now + ((float(heading) - now + math.pi / 2) % math.pi - math.pi / 2)
        pose = np.eye(4)
        pose[:3, :3] = top_down_rotation(heading)
        pose[:3, 3] = target
        return self.station.move_tcp(arm, pose, line=path == 'line', cancel=cancel)

    def reach(self, arm: str, target: np.ndarray, heading: float | None, *, descend: bool,
              max_tilt: float) -> tuple[str, float]:
        """Check only the safety gate's table rules (the station plans the rest)."""
        return self._gate(arm, target, descend), 0.0

    def home(self, arm: str, cancel: CancelToken | None) -> tuple[np.ndarray, Motion]:
        """Let the station's controller go to the ready TCP pose."""
        pose = self.station.home_tcp_pose(arm)
        return pose[:3, 3], self.station.move_tcp(arm, pose, line=False, cancel=cancel)

    def reach_band_m(self, arm: str, height_above_table_m: float) -> tuple[float, float] | None:
        """Return None: the station's own controller decides what it reaches."""
        return None


def arm_model(station: Station, motion: MotionConfig | None = None,
              safety: SafetyConfig | None = None) -> ArmModel:
    """
    Return the kinematic model of ``station``'s arms.

    :param station: the episode's Station; its ``arm_model`` attribute, if any, wins.
    :param motion: planning settings; None uses the MotionConfig defaults.
    :param safety: gate thresholds; None uses the SafetyConfig defaults.
    """
    motion = MotionConfig() if motion is None else motion
    safety = SafetyConfig() if safety is None else safety
    declared = getattr(station, 'arm_model', None)
    if declared is not None:
        return declared(station, motion, safety)
    kind = StationPlannedArm if isinstance(station, CartesianArm) else ArxX5Arm
    return kind(station, motion, safety)

"""
The station facts: the numbers a program or a model needs, measured from the Station.

Table height, arm bases and the way each arm faces, the ready pose, the top-down reach
over this table, the finger-tip offset, the gripper opening and the safety gate's table
clearances are read from the Station, its arm model (``arm_models``) and the library's
safety settings, never written for one station (DESIGN.md rule 8). ``robo.station_facts()``
returns them to a program; the prompt's station facts section is rendered from the same
``StationFacts``.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np

from .arm_models import ArmModel
from .kinematics.orientation import approach_tilt_rad
from .safety import SafetyConfig
from .station import Station, station_arms, station_cameras

REACH_HEIGHTS_M = (0.03, 0.05, 0.08, 0.10)
"""Heights above the table at which the top-down reach band is stated. The lowest is no lower
than a descent goes on any station served (the twin's lowest_descend_z_m is table + 0.023,
LIBERO's table + 0.030): every stated band must be one a move_to reaches (0.02 was not)."""
_TOP_STEP_M = 0.005
_TOP_LIMIT_M = 0.5

Vec3 = tuple[float, float, float]


def axis_name(vector: np.ndarray) -> str:
    """Return the world axis ``vector`` points along (``'+y'``), or its components."""
    index = int(np.argmax(np.abs(vector)))
    if abs(vector[index]) > 0.9:
        return ('+' if vector[index] > 0 else '-') + 'xyz'[index]
    return '({:.2f}, {:.2f}, {:.2f})'.format(*vector)


def _vec(values: np.ndarray) -> Vec3:
    return tuple(round(float(v), 6) for v in values)


@dataclass(frozen=True, slots=True)
class ArmFacts:
    """
    One arm's facts (world frame, metres; heights above the table top).

    ``ready_m`` is where the pads are at the ready pose (None: the station has no
    calibrated ready pose). ``reach_m`` holds (height above the table, nearest, farthest)
    horizontal distances from the base that a straight-down gripper reaches, for each
    height of ``REACH_HEIGHTS_M`` it reaches at all; empty (and ``top_m`` None) for an arm
    that plans its own motions.
    """

    arm: str
    base_m: Vec3
    facing: str
    ready_m: Vec3 | None
    ready_tilt_rad: float | None
    reach_m: tuple[tuple[float, float, float], ...]
    top_m: float | None

    @property
    def base_xy(self) -> tuple[float, float]:
        """Return the base's (x, y), metres."""
        return self.base_m[0], self.base_m[1]

    def band_m(self, height_above_table_m: float) -> tuple[float, float] | None:
        """Return the reach band stated for this height above the table, or None."""
        for height, near, far in self.reach_m:
            if math.isclose(height, height_above_table_m, abs_tol=1e-9):
                return near, far
        return None

    def __repr__(self) -> str:
        x, y, z = self.base_m
        return f'ArmFacts({self.arm!r}, base ({x:.2f}, {y:.2f}, {z:.3f}) m facing {self.facing})'


@dataclass(frozen=True, slots=True)
class StationFacts:
    """
    What this station is: table, arms, cameras, gripper and the gate's table clearances.

    ``table_clearance_m``: how high above the table the point between the pads stays on a
    move without ``descend``; ``fingertip_floor_m``: how high the finger tips stay on a
    descent; ``fingertip_beyond_tcp_m``: how far the finger tips reach beyond the point
    between the pads (below it when pointing straight down).
    """

    table_z_m: float
    arms: dict[str, ArmFacts]
    cameras: tuple[str, ...]
    gripper_max_width_m: float
    fingertip_beyond_tcp_m: float
    table_clearance_m: float
    fingertip_floor_m: float
    plans_itself: bool

    def base_xy(self, arm: str) -> tuple[float, float]:
        """Return the (x, y) of ``arm``'s base, metres."""
        return self.arms[arm].base_xy

    @property
    def lowest_descend_z_m(self) -> float:
        """Return the lowest TCP z a descent may reach: the finger tips on their floor."""
        return lowest_descend_z_m(self.table_z_m, self.fingertip_floor_m,
                                  self.fingertip_beyond_tcp_m)

    def __repr__(self) -> str:
        bases = ', '.join(f'{a} at ({f.base_m[0]:.2f}, {f.base_m[1]:.2f})'
                          for a, f in self.arms.items())
        return (f'StationFacts(table z={self.table_z_m:.3f} m, {bases}, gripper <= '
                f'{self.gripper_max_width_m * 1000:.0f} mm)')


def lowest_descend_z_m(table_z_m: float, fingertip_floor_m: float,
                       fingertip_beyond_tcp_m: float) -> float:
    """Return the lowest TCP z a descent may reach: the finger tips on their floor."""
    return table_z_m + fingertip_floor_m + fingertip_beyond_tcp_m


def _top_m(model: ArmModel, arm: str) -> float | None:
    """Return the highest height above the table (5 mm steps) the arm reaches straight down."""
    reached = [h for h in REACH_HEIGHTS_M if model.reach_band_m(arm, h) is not None]
    if not reached:
        return None
    height = max(reached)
    while height < _TOP_LIMIT_M and model.reach_band_m(arm, height + _TOP_STEP_M):
        height += _TOP_STEP_M
    return round(height, 6)


def read_station_facts(station: Station, model: ArmModel,
                       safety: SafetyConfig | None = None) -> StationFacts:
    """
    Measure the station facts from ``station``.

    :param station: the episode's Station.
    :param model: its arm model (``arm_models.arm_model(station)``).
    :param safety: the library's gate thresholds; None uses the SafetyConfig defaults.
    :returns: the StationFacts.
    """
    safety = SafetyConfig() if safety is None else safety
    table_z = float(station.table_height_m())
    plans_itself = bool(getattr(model, 'plans_itself', False))
    arms = {}
    for arm in station_arms(station):
        base = station.arm_base(arm).world_from_base
        has_ready = plans_itself or hasattr(station, 'home_positions_rad')
        ready = model.home_tcp_pose(arm) if has_ready else None
        reach = () if plans_itself else tuple(
            (height, *band) for height in REACH_HEIGHTS_M
            if (band := model.reach_band_m(arm, height)) is not None)
        arms[arm] = ArmFacts(arm=arm, base_m=_vec(base[:3, 3]), facing=axis_name(base[:3, 0]),
                             ready_m=None if ready is None else _vec(ready[:3, 3]),
                             ready_tilt_rad=(None if ready is None
                                             else float(approach_tilt_rad(ready[:3, :3]))),
                             reach_m=reach, top_m=None if plans_itself else _top_m(model, arm))
    widths = [station.joint_limits(arm).gripper_max_width_m for arm in arms]
    return StationFacts(table_z_m=table_z, arms=arms, cameras=station_cameras(station),
                        gripper_max_width_m=float(max(widths)),
                        fingertip_beyond_tcp_m=float(model.fingertip_beyond_tcp_m),
                        table_clearance_m=float(safety.table_clearance_m),
                        fingertip_floor_m=float(safety.fingertip_floor_m),
                        plans_itself=plans_itself)

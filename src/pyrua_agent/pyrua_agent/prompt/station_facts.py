"""
The station facts of the system prompt, rendered from the episode's Station.

Table height, arm bases and the way each arm faces, the cameras, the top-down reach over
this table and the gripper opening are read from the Station and the arm's kinematics, never
written for one station (DESIGN.md rule 8): a calibrated real station or a benchmark with
another table gets its own numbers.
"""

from __future__ import annotations

import math

import numpy as np
from pyrua_primitives.kinematics.forward import tcp_pose
from pyrua_primitives.kinematics.orientation import approach_tilt_rad
from pyrua_primitives.kinematics.top_down import planar_shapes
from pyrua_primitives.station import Station, station_arms, station_cameras

REACH_HEIGHTS_M = (0.02, 0.05, 0.08, 0.10)
"""Heights above the table at which the top-down reach band is stated."""
_TOP_STEP_M = 0.005
_STEP_M = 0.005
_MAX_DISTANCE_M = 0.9


def _axis_name(vector: np.ndarray) -> str:
    """Return the world axis ``vector`` points along (``'+y'``), or its components."""
    index = int(np.argmax(np.abs(vector)))
    if abs(vector[index]) > 0.9:
        return ('+' if vector[index] > 0 else '-') + 'xyz'[index]
    return '({:.2f}, {:.2f}, {:.2f})'.format(*vector)


def _xyz(vector: np.ndarray) -> str:
    return '({:.2f}, {:.2f}, {:.3f})'.format(*vector)


def reach_band_m(height_above_base_m: float) -> tuple[float, float] | None:
    """Return the horizontal distances from the base a top-down TCP reaches at this height."""
    distances = [d for d in np.arange(0.0, _MAX_DISTANCE_M, _STEP_M)
                 if planar_shapes(float(d), height_above_base_m)]
    return (float(min(distances)), float(max(distances))) if distances else None


def _reach_lines(station: Station, arms: tuple[str, ...]) -> list[str]:
    table_z = station.table_height_m()
    bands = []
    for arm in arms:
        base_z = float(station.arm_base(arm).world_from_base[2, 3])
        for height in REACH_HEIGHTS_M:
            band = reach_band_m(table_z + height - base_z)
            bands.append((arm, height, band))
    lines = []
    for height in REACH_HEIGHTS_M:
        per_arm = {arm: band for arm, h, band in bands if h == height}
        if len(set(per_arm.values())) == 1:
            band = per_arm[arms[0]]
            text = 'nothing' if band is None else f'{band[0]:.2f}-{band[1]:.2f} m'
        else:
            text = '; '.join(f'{arm} ' + ('nothing' if b is None else f'{b[0]:.2f}-{b[1]:.2f} m')
                             for arm, b in per_arm.items())
        lines.append(f'{height:.2f} m above the table: {text}')
    top = _highest_m(station, arms)
    if top is not None:
        lines.append(f'nothing above about {top:.3f} m above the table (move_to(max_tilt=...) '
                     'goes higher, tilted)')
    return lines


def _highest_m(station: Station, arms: tuple[str, ...]) -> float | None:
    """Return the highest height above the table (5 mm steps) any arm reaches straight down."""
    table_z, top = station.table_height_m(), None
    for arm in arms:
        base_z = float(station.arm_base(arm).world_from_base[2, 3])
        height = REACH_HEIGHTS_M[-1]
        while height < 0.5 and reach_band_m(table_z + height + _TOP_STEP_M - base_z):
            height += _TOP_STEP_M
        top = height if top is None else max(top, height)
    return top


def _ready_pose_line(station: Station, arms: tuple[str, ...]) -> str | None:
    """Return where each arm starts (its ready pose), or None if the station cannot say."""
    if not hasattr(station, 'home_positions_rad'):
        return None
    table_z, poses = station.table_height_m(), []
    for arm in arms:
        pose = tcp_pose(station.home_positions_rad(arm), station.arm_base(arm).world_from_base)
        tilt = math.degrees(approach_tilt_rad(pose[:3, :3]))
        poses.append(f'the {arm} pads at {_xyz(pose[:3, 3])}, '
                     f'{pose[2, 3] - table_z:.2f} m above the table, tilted {tilt:.0f} deg')
    return ('- The arms start at their ready pose (robo.home returns there): '
            + '; '.join(poses) + '. That pose is outside the straight-down reach below; a '
            'move_to from it is fine: only the target and the path are checked.')


def station_facts(station: Station) -> str:
    """
    Return the station's facts as prompt bullets (markdown), measured from ``station``.

    :param station: the episode's Station.
    :returns: table height, arm bases and facing, cameras, top-down reach and gripper.
    """
    table_z = station.table_height_m()
    arms, cameras = station_arms(station), station_cameras(station)
    lines = [f'- The table top is at z = {table_z:.3f} m.']
    bases = []
    for arm in arms:
        pose = station.arm_base(arm).world_from_base
        bases.append(f'the {arm} arm base at {_xyz(pose[:3, 3])} facing '
                     f'{_axis_name(pose[:3, 0])}')
    lines.append('- Arms: ' + '; '.join(bases) + '.')
    for camera in cameras:
        model = station.camera_model(camera)
        if camera.endswith('_wrist'):
            lines.append(f'- Camera {camera!r} is on the {camera.split("_")[0]} wrist and '
                         'moves with it.')
            continue
        right = model.world_from_camera[:3, 0]
        lines.append(f'- Camera {camera!r} is at {_xyz(model.position_m)} looking '
                     f'{_axis_name(model.forward)}; image right is world '
                     f'{_axis_name(right)}.')
    ready = None if hasattr(station, 'tcp_pose') else _ready_pose_line(station, arms)
    if ready is not None:
        lines.append(ready)
    if hasattr(station, 'tcp_pose'):  # a CartesianArm station: not the ARX-X5's reach
        lines.append('- The arm plans its own motions; a target it cannot reach is refused '
                     'with the reason.')
    else:
        lines.append('- Pointing straight down, the gripper reaches these horizontal '
                     "distances from its arm's base: " + '; '.join(_reach_lines(station, arms))
                     + '.')
    widths = {station.joint_limits(arm).gripper_max_width_m for arm in arms}
    lines.append(f'- The gripper opens to at most {max(widths):.3f} m between the finger '
                 'pads.')
    return '\n'.join(lines)

"""
The station facts of the system prompt, rendered from the episode's Station.

The numbers come from ``pyrua_primitives.facts`` (the same ``StationFacts`` a program reads
with ``robo.station_facts()``): table height, arm bases and the way each arm faces, the cameras,
the ready pose, the top-down reach over this table, the finger-tip offset, the table
clearances of the safety gate and the gripper opening, measured from the Station and its
arm model, never written for one station (DESIGN.md rule 8). The primitives' docstrings
refer to this section instead of quoting numbers.
"""

from __future__ import annotations

import math

from pyrua_primitives.arm_models import arm_model
from pyrua_primitives.facts import axis_name, REACH_HEIGHTS_M, read_station_facts, StationFacts
from pyrua_primitives.safety import SafetyConfig
from pyrua_primitives.station import Station


def _xyz(vector) -> str:
    return '({:.2f}, {:.2f}, {:.3f})'.format(*vector)


def _band_text(band: tuple[float, float] | None) -> str:
    return 'nothing' if band is None else f'{band[0]:.2f}-{band[1]:.2f} m'


def _reach_lines(facts: StationFacts) -> list[str]:
    arms = list(facts.arms.values())
    lines = []
    for height in REACH_HEIGHTS_M:
        per_arm = {arm.arm: arm.band_m(height) for arm in arms}
        if len(set(per_arm.values())) == 1:
            text = _band_text(per_arm[arms[0].arm])
        else:
            text = '; '.join(f'{arm} {_band_text(band)}' for arm, band in per_arm.items())
        lines.append(f'{height:.2f} m above the table: {text}')
    tops = [arm.top_m for arm in arms if arm.top_m is not None]
    if tops:
        lines.append(f'nothing above about {max(tops):.3f} m above the table '
                     '(move_to(max_tilt=...) goes higher, tilted)')
    return lines


def _ready_pose_line(facts: StationFacts) -> str | None:
    """Return where each arm starts (its ready pose), or None if the station cannot say."""
    arms = list(facts.arms.values())
    if any(arm.ready_m is None for arm in arms):
        return None
    poses = [f'the {arm.arm} pads at {_xyz(arm.ready_m)}, '
             f'{arm.ready_m[2] - facts.table_z_m:.2f} m above the table, tilted '
             f'{math.degrees(arm.ready_tilt_rad):.0f} deg' for arm in arms]
    return ('- The arms start at their ready pose (robo.home returns there): '
            + '; '.join(poses) + '. That pose is outside the straight-down reach below; a '
            'move_to from it is fine: only the target and the path are checked.')


def _clearance_line(facts: StationFacts) -> str:
    table = facts.table_z_m
    return (f'- The finger tips reach {facts.fingertip_beyond_tcp_m:.3f} m beyond the point '
            'between the pads (below it when pointing straight down). move_to keeps that '
            f'point at least {facts.table_clearance_m:.3f} m above the table (z >= '
            f'{table + facts.table_clearance_m:.3f}); with descend=True only the finger tips '
            f'must stay {facts.fingertip_floor_m:.3f} m above it (z >= '
            f'{facts.lowest_descend_z_m:.3f}).')


def render_station_facts(facts: StationFacts, camera_lines: list[str]) -> str:
    """
    Return the station's facts as prompt bullets (markdown).

    :param facts: the measured StationFacts.
    :param camera_lines: one bullet per camera (``station_facts`` measures them).
    """
    lines = [f'- The table top is at z = {facts.table_z_m:.3f} m.']
    lines.append('- Arms: ' + '; '.join(
        f'the {arm.arm} arm base at {_xyz(arm.base_m)} facing {arm.facing}'
        for arm in facts.arms.values()) + '.')
    lines.extend(camera_lines)
    if facts.plans_itself:
        lines.append('- The arm plans its own motions; a target it cannot reach is refused '
                     'with the reason.')
    else:
        ready = _ready_pose_line(facts)
        if ready is not None:
            lines.append(ready)
        lines.append('- Pointing straight down, the gripper reaches these horizontal '
                     "distances from its arm's base: " + '; '.join(_reach_lines(facts)) + '.')
    lines.append(_clearance_line(facts))
    lines.append(f'- The gripper opens to at most {facts.gripper_max_width_m:.3f} m between the '
                 'finger pads.')
    return '\n'.join(lines)


def _camera_lines(station: Station, cameras: tuple[str, ...]) -> list[str]:
    lines = []
    for camera in cameras:
        if camera.endswith('_wrist'):
            lines.append(f'- Camera {camera!r} is on the {camera.split("_")[0]} wrist and '
                         'moves with it.')
            continue
        model = station.camera_model(camera)
        right = model.world_from_camera[:3, 0]
        lines.append(f'- Camera {camera!r} is at {_xyz(model.position_m)} looking '
                     f'{axis_name(model.forward)}; image right is world '
                     f'{axis_name(right)}.')
    return lines


def station_facts(station: Station, safety: SafetyConfig | None = None) -> str:
    """
    Return the station's facts as prompt bullets (markdown), measured from ``station``.

    :param station: the episode's Station.
    :param safety: the library's safety gate thresholds (the table clearances); None uses
        the SafetyConfig defaults.
    :returns: table height, arm bases and facing, cameras, top-down reach, clearances and
        gripper.
    """
    facts = read_station_facts(station, arm_model(station, safety=safety), safety)
    return render_station_facts(facts, _camera_lines(station, facts.cameras))

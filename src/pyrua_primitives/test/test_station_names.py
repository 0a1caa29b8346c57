"""Stations declare their arms and cameras; the gate checks Cartesian moves of other robots."""

import functools

from pyrua_primitives import safety
from pyrua_primitives.safety import SafetyConfig
from pyrua_primitives.station import check_arm, check_camera, station_arms, station_cameras
import pytest

TABLE_Z = 0.9
# The station's TCP calibration: its finger tips 2 cm beyond the point between the pads.
check_tcp_target = functools.partial(safety.check_tcp_target, fingertip_beyond_tcp_m=0.02)


class _OneArmStation:
    arms = ('arm',)
    cameras = ('agentview', 'robot0_eye_in_hand')


def test_names_default_to_the_arx_station_and_follow_a_declaring_station():
    assert station_arms(object()) == ('left', 'right')
    assert station_cameras(object()) == ('head', 'left_wrist', 'right_wrist')
    station = _OneArmStation()
    assert station_arms(station) == ('arm',)
    assert check_arm('arm', station_arms(station)) == 'arm'
    assert check_camera('agentview', station_cameras(station)) == 'agentview'


def test_an_arm_the_station_does_not_have_is_refused_with_its_names():
    with pytest.raises(ValueError, match=r"unknown arm 'left'; valid: 'arm'"):
        check_arm('left', station_arms(_OneArmStation()))
    with pytest.raises(ValueError, match="did you mean 'agentview'"):
        check_camera('agentveiw', station_cameras(_OneArmStation()))


def test_cartesian_targets_keep_table_clearance_unless_descending():
    above = (0.0, 0.0, TABLE_Z + 0.2)
    assert check_tcp_target(above, (0.1, 0.1, TABLE_Z + 0.05), TABLE_Z) == ''
    low = check_tcp_target(above, (0.1, 0.1, TABLE_Z + 0.025), TABLE_Z)
    assert 'below table clearance 0.9300 m; raise z to at least 0.9300' in low
    assert 'descend=True' in low
    assert check_tcp_target(above, (0.1, 0.1, TABLE_Z + 0.025), TABLE_Z, descend=True) == ''


def test_finger_tips_never_go_below_the_floor_even_when_descending():
    reason = check_tcp_target((0.0, 0.0, 1.1), (0.0, 0.0, TABLE_Z + 0.02), TABLE_Z,
                              descend=True)
    assert 'finger tips z=0.9000 m' in reason and 'below the floor 0.9030 m' in reason


def test_a_move_that_starts_low_may_rise_but_not_sink():
    start = (0.0, 0.0, TABLE_Z + 0.025)
    config = SafetyConfig()
    assert check_tcp_target(start, (0.0, 0.0, TABLE_Z + 0.026), TABLE_Z, config=config) == ''
    assert 'below table clearance' in check_tcp_target(start, (0.0, 0.0, TABLE_Z + 0.02),
                                                       TABLE_Z, config=config)

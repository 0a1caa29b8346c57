"""The ROS station's default calibration is the twin's: ``robo.home`` goes to the same pose."""

import numpy as np
from pyrua_primitives.ros.config import RosStationConfig
from pyrua_sim.twin import load_twin


def test_ros_station_home_defaults_are_the_twin_home_keyframe():
    twin = load_twin('pick_place', 0, 0)
    try:
        config = RosStationConfig()
        for arm in ('left', 'right'):
            np.testing.assert_allclose(config.home_positions_rad(arm),
                                       twin.station.home_positions_rad(arm), atol=1e-9)
        assert config.table_height_m == twin.station.table_height_m()
    finally:
        twin.close()

"""Each station's arm model: the twin's ARX-X5 kinematics, or one the station declares."""

import numpy as np
from pyrua_primitives.arm_models import arm_model, ArxX5Arm
from pyrua_primitives.facts import read_station_facts
from pyrua_primitives.library import PrimitiveLibrary
from pyrua_primitives.safety import SafetyConfig
from pyrua_sim.twin import load_twin
import pytest


@pytest.fixture(scope='module')
def twin():
    with load_twin('pick_place', 0, 0) as loaded:
        yield loaded


def test_the_twin_is_planned_with_the_arx_x5_model_and_its_facts_are_the_stations(twin):
    library = PrimitiveLibrary(twin.station)
    assert isinstance(library.arm_model, ArxX5Arm)
    facts = library.station_facts()
    assert facts.table_z_m == pytest.approx(twin.station.table_height_m())
    assert facts.base_xy('right') == pytest.approx(
        twin.station.arm_base('right').world_from_base[:2, 3])
    assert facts.gripper_max_width_m == twin.station.joint_limits('left').gripper_max_width_m
    assert facts.arms['left'].band_m(0.03) == pytest.approx((0.08, 0.47), abs=0.005)
    assert facts.arms['left'].top_m == pytest.approx(0.115)
    assert facts.lowest_descend_z_m == pytest.approx(facts.table_z_m + 0.003 + 0.02)
    # the ready pose the facts state is where home() puts the pads
    assert library.home('left').reached
    assert library.pose('left').position_m == pytest.approx(facts.arms['left'].ready_m,
                                                            abs=0.005)
    assert len(repr(facts)) <= 120 and 'table z=0.765 m' in repr(facts)


def test_the_clearances_in_the_facts_are_the_librarys_safety_settings(twin):
    model = arm_model(twin.station)
    facts = read_station_facts(twin.station, model,
                               SafetyConfig(table_clearance_m=0.05, fingertip_floor_m=0.01))
    assert (facts.table_clearance_m, facts.fingertip_floor_m) == (0.05, 0.01)
    assert facts.lowest_descend_z_m == pytest.approx(facts.table_z_m + 0.01 + 0.02)


class _HeldStill:
    """An arm model a station declares: it refuses every move with its own reason."""

    plans_itself = True
    fingertip_beyond_tcp_m = 0.03

    def __init__(self, station, motion, safety):
        self.station = station

    def tcp_pose(self, arm, positions_rad):
        return self.home_tcp_pose(arm)

    def home_tcp_pose(self, arm):
        pose = np.eye(4)
        pose[:3, 3] = (0.0, -0.2, 1.0)
        return pose

    def move(self, arm, target, heading, *, descend, max_tilt, path, cancel):
        return 'this arm is held still by its station'

    def reach(self, arm, target, heading, *, descend, max_tilt):
        return 'this arm is held still by its station', 0.0

    def home(self, arm, cancel):
        refused = self.move(arm, None, None, descend=False, max_tilt=0.0, path='line',
                            cancel=cancel)
        return self.home_tcp_pose(arm)[:3, 3], refused

    def reach_band_m(self, arm, height_above_table_m):
        return None


def test_a_station_that_declares_its_arm_model_is_driven_through_it():
    with load_twin('pick_place', 0, 0) as twin:
        twin.station.arm_model = _HeldStill
        library = PrimitiveLibrary(twin.station)
        before = library.joints('left').positions_rad.copy()
        moved = library.move_to('left', [0.0, -0.2, 0.9])
        assert not moved.reached and moved.reason == 'this arm is held still by its station'
        assert not library.reachable('left', [0.0, -0.2, 0.9]).reachable
        assert library.joints('left').positions_rad == pytest.approx(before)
        facts = library.station_facts()
        assert facts.plans_itself and facts.fingertip_beyond_tcp_m == 0.03
        assert facts.arms['left'].reach_m == () and facts.arms['left'].top_m is None

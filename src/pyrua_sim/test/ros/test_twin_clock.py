"""The sim node's clock (``TwinHost.time_s``) never goes back, across resets too."""

import numpy as np
from pyrua_sim.ros.twin_host import RESET_STEP_S, TwinHost
from pyrua_sim.twin import load_twin
import pytest


@pytest.fixture
def host():
    host = TwinHost(load_twin('pick_place', 0, 0))
    yield host
    host.twin.close()


def test_time_goes_on_across_a_reset_while_durations_stay_twin_seconds(host):
    station = host.twin.station
    q = station.joint_state('left').positions_rad
    outcome = station.follow_joint_trajectory('left', q[None, :], np.array([0.5]))
    before = host.time_s()
    assert before == pytest.approx(station.time_s()) and before >= 0.5
    assert outcome.duration_s == pytest.approx(0.5, abs=0.02)

    assert host.reset('pick_place', 0, 1) == (True, '')
    assert station.time_s() == pytest.approx(0.0)  # the twin itself starts again
    after = host.time_s()
    assert after == pytest.approx(before + RESET_STEP_S)
    assert host.stamp_s(0.25) == pytest.approx(after + 0.25)

    q = station.joint_state('left').positions_rad
    outcome = station.follow_joint_trajectory('left', q[None, :], np.array([0.3]))
    assert host.time_s() == pytest.approx(after + outcome.duration_s)


def test_a_refused_reset_keeps_the_clock(host):
    before = host.time_s()
    ok, message = host.reset('no_such_task', 0, 0)
    assert not ok and 'no_such_task' in message
    assert host.time_s() == before

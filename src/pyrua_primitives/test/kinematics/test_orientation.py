import math

import numpy as np
from pyrua_primitives.kinematics.orientation import (
    approach_tilt_rad,
    check_heading,
    closing_heading_rad,
    interpolate_rotation,
    rotation_angle_rad,
    rotation_exp,
    rotation_log,
    top_down_rotation,
)
import pytest


@pytest.mark.parametrize('heading', [-1.2, 0.0, 0.7, 1.5])
def test_top_down_rotation_points_down_and_closes_along_heading(heading):
    r = top_down_rotation(heading)
    np.testing.assert_allclose(r @ r.T, np.eye(3), atol=1e-12)
    assert np.linalg.det(r) == pytest.approx(1.0)
    np.testing.assert_allclose(r[:, 0], (0.0, 0.0, -1.0))
    assert approach_tilt_rad(r) == pytest.approx(0.0, abs=1e-9)
    assert closing_heading_rad(r) == pytest.approx(heading)


def test_headings_half_a_turn_apart_close_the_same_way():
    assert closing_heading_rad(top_down_rotation(2.0)) == pytest.approx(2.0 - math.pi)


@pytest.mark.parametrize('angle', [0.0, 1e-8, 0.5, 2.0, math.pi - 1e-6, math.pi])
def test_rotation_log_inverts_exp_up_to_a_half_turn(angle):
    axis = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    r = rotation_exp(angle * axis)
    np.testing.assert_allclose(rotation_exp(rotation_log(r)), r, atol=1e-6)
    assert rotation_angle_rad(np.eye(3), r) == pytest.approx(angle, abs=1e-6)


def test_interpolated_rotation_turns_evenly():
    a, b = top_down_rotation(0.0), top_down_rotation(1.0)
    half = interpolate_rotation(a, b, 0.5)
    assert closing_heading_rad(half) == pytest.approx(0.5)


@pytest.mark.parametrize('bad', [math.nan, math.inf, 'north'])
def test_heading_rejects_non_numbers(bad):
    with pytest.raises(ValueError, match='heading_rad'):
        check_heading(bad)

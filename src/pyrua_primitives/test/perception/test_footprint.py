import math

import numpy as np
from pyrua_primitives.perception.footprint import fit_footprint
import pytest


def _square(cx, cy, side, yaw_deg, step=0.0005):
    g = np.arange(-side / 2 + step / 2, side / 2, step)
    xs, ys = np.meshgrid(g, g)
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    pts = np.column_stack([xs.ravel(), ys.ravel()])
    return pts @ np.array([[c, s], [-s, c]]) + (cx, cy), len(pts) * step * step


@pytest.mark.parametrize('yaw_deg, expected_deg', [(10, 10), (60, -30), (-50, 40), (-46, 44)])
def test_square_heading_is_wrapped_into_plus_minus_45_deg(yaw_deg, expected_deg):
    pts, area = _square(0.1, 0.2, 0.04, yaw_deg)
    fp = fit_footprint(pts, 'box', 0.0005)
    assert math.degrees(fp.heading_rad) == pytest.approx(expected_deg, abs=0.5)
    assert fp.size_m == pytest.approx((0.04, 0.04), abs=0.001)
    assert fp.center_xy_m == pytest.approx((0.1, 0.2), abs=1e-4)


def test_rectangle_heading_follows_its_long_side():
    pts, area = _square(0.0, 0.0, 0.04, 0.0)
    pts = pts * (2.0, 1.0)
    rot = math.radians(120)
    pts = pts @ np.array([[math.cos(rot), math.sin(rot)], [-math.sin(rot), math.cos(rot)]])
    fp = fit_footprint(pts, 'box', 0.0)
    assert math.degrees(fp.heading_rad) == pytest.approx(-60, abs=0.5)
    assert fp.size_m[0] == pytest.approx(0.08, abs=0.0015)


def test_cross_is_fitted_along_its_strips():
    strip = np.column_stack([np.linspace(-0.03, 0.03, 121), np.zeros(121)])
    thick = np.concatenate([strip + (0, dy) for dy in np.linspace(-0.005, 0.005, 11)])
    cross = np.concatenate([thick, thick[:, ::-1]])
    rot = math.radians(30)
    cross = cross @ np.array([[math.cos(rot), math.sin(rot)], [-math.sin(rot), math.cos(rot)]])
    fp = fit_footprint(cross + (0.2, -0.1), 'cross', 0.0)
    assert math.degrees(fp.heading_rad) == pytest.approx(30, abs=0.5)
    assert fp.size_m == pytest.approx((0.06, 0.06), abs=0.001)
    assert fp.center_xy_m == pytest.approx((0.2, -0.1), abs=1e-4)

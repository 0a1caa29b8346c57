import numpy as np
from pyrua_primitives.perception import back_project, camera_meta
from pyrua_primitives.perception.projection import project_points
import pytest

TABLE_Z = 0.765


def test_back_project_inverts_projection_on_the_table(block_scene):
    head = block_scene[0][0].model
    point = np.array([0.12, 0.03, TABLE_Z])
    (u, v), = project_points(head, point)[0]
    result = back_project(head, u, v, TABLE_Z)
    assert result.hit and result.reason == ''
    assert np.allclose(result.point_m, point, atol=1e-9)
    assert result.range_m == pytest.approx(np.linalg.norm(point - head.position_m))
    assert repr(result).startswith("BackProjectResult(hit, 'head' -> (0.120, 0.030, 0.765) m")


def test_back_project_refuses_rays_that_miss_the_plane(block_scene):
    head = block_scene[0][0].model
    result = back_project(head, 320.0, 240.0, 1.5)
    assert not result.hit
    assert "from 'head' at z=1.308 m misses the plane z=1.500 m" in result.reason
    assert result.point_m is None and result.range_m is None


def test_back_project_refuses_pixels_outside_the_image(block_scene):
    result = back_project(block_scene[0][0].model, 640.0, 10.0, TABLE_Z)
    assert not result.hit and 'outside the 640x480 image' in result.reason


def test_camera_meta_describes_the_head_camera(block_scene):
    meta = camera_meta(block_scene[0][0].model)
    assert meta.pitch_deg == pytest.approx(60.0, abs=0.05)
    assert meta.yaw_deg == pytest.approx(90.0, abs=0.05)
    assert meta.vfov_deg == pytest.approx(79.6, abs=0.01)
    assert meta.position_m == pytest.approx((0.0, -0.41, 1.308))
    assert 'pitch 60.0 deg' in repr(meta)


def test_depth_point_finds_the_top_of_a_block_where_the_plane_would_miss_it(block_scene):
    from pyrua_primitives.perception import depth_point

    head = block_scene[1][0]
    block = block_scene[2]
    top = np.array([0.08, 0.05, TABLE_Z + 0.04])
    (u, v), = project_points(head.model, top)[0]
    result = depth_point(head.model, head.depth_m, u, v)
    assert result.hit and np.allclose(result.point_m, top, atol=0.006), (result, block)
    on_table = back_project(head.model, u, v, TABLE_Z)
    assert np.linalg.norm(np.subtract(on_table.point_m, top)) > 0.03


def test_depth_point_refuses_pixels_without_depth_or_outside(block_scene):
    from pyrua_primitives.perception import depth_point

    head = block_scene[1][0]
    empty = np.zeros_like(head.depth_m)
    assert 'has no depth' in depth_point(head.model, empty, 10.0, 10.0).reason
    assert 'outside the 640x480 image' in depth_point(head.model, head.depth_m, 700, 1).reason

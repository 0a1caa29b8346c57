"""Both pixel look-ups refuse alike: one outside-the-image refusal, no point when not hit."""

import numpy as np
from pyrua_primitives.perception import back_project, depth_point


def test_a_pixel_outside_the_image_is_refused_the_same_way_by_both_look_ups(block_scene):
    head = block_scene[1][0]
    for u, v in ((700.0, 1.0), (-1.0, 10.0), (10.0, 480.0)):
        plane = back_project(head.model, u, v, 0.75)
        depth = depth_point(head.model, head.depth_m, u, v)
        assert plane == depth and not plane.hit
        assert plane.point_m is None and plane.range_m is None
        assert f'pixel ({u:.1f}, {v:.1f}) is outside the 640x480 image' in plane.reason


def test_a_pixel_without_depth_has_no_point_either(block_scene):
    head = block_scene[1][0]
    result = depth_point(head.model, np.zeros_like(head.depth_m), 10.0, 10.0)
    assert not result.hit and result.point_m is None and result.range_m is None

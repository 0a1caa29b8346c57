import math

import numpy as np
from pyrua_primitives.perception import locate, make_segmenter
from pyrua_primitives.perception.oracle import PrivilegedRefused
import pytest


def test_oracle_is_refused_unless_privileged_access_is_explicit():
    with pytest.raises(PrivilegedRefused, match='allow_privileged=False vs True'):
        make_segmenter('oracle', provider=lambda frame, query: [])
    with pytest.raises(PrivilegedRefused):
        make_segmenter('oracle', provider=lambda frame, query: [], allow_privileged=1)


def test_oracle_needs_a_callable_provider():
    with pytest.raises(TypeError, match='pass provider'):
        make_segmenter('oracle', allow_privileged=True)


def test_locate_with_oracle_masks_measures_the_block(scenes):
    block = scenes.Thing('box', 'purple', (-0.05, 0.12), (0.04, 0.04, 0.04), 30.0)
    wrist = {'left_wrist': ((-0.3, -0.2, 1.05), (-0.05, 0.12, scenes.table_z))}
    ids = {}
    frames = scenes.render([block], wrist, geom_ids=ids)

    def ground_truth(frame, query):
        return [ids[frame.camera] == 1] if query.noun == 'block' else []

    oracle = make_segmenter('oracle', provider=ground_truth, allow_privileged=True)
    result = locate(frames, 'block', oracle, 0.765)
    assert result.found and result.height_source == 'rgb_hull'
    x, y, z = result.position_m
    assert math.dist((x, y, z), (-0.05, 0.12, 0.785)) < 0.003
    assert not locate(frames, 'bowl', oracle, 0.765).found


def test_oracle_refuses_masks_of_the_wrong_size(scenes):
    frames = scenes.render([])
    oracle = make_segmenter('oracle', allow_privileged=True,
                            provider=lambda frame, query: [np.ones((4, 4), bool)])
    with pytest.raises(ValueError, match=r'oracle mask shape \(4, 4\) vs image \(480, 640\)'):
        locate(frames, 'red block', oracle, 0.765)

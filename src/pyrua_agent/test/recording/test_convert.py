"""Recorded values stay small and finite: long, deep and self-containing values are summaries."""

import json

import numpy as np
from pyrua_agent.recording.convert import MAX_JSON_ITEMS, plain


def test_plain_keeps_ordinary_values_as_json_types():
    value = {'xyz': (0.1, float('nan'), np.float32(2.0)), 'n': np.int64(3), 'ok': True}
    assert plain(value) == {'xyz': [0.1, None, 2.0], 'n': 3, 'ok': True}


def test_plain_summarizes_long_deep_and_self_containing_values():
    deep: list = []
    for _ in range(1500):
        deep = [deep]
    loop: list = []
    loop.append(loop)
    record = plain({'long': [0.0] * 10 ** 6, 'deep': deep, 'loop': loop,
                    'image': np.zeros((480, 640, 3), np.uint8)})
    assert record['long'] == {'summary': f'list of 1000000 items, over {MAX_JSON_ITEMS}: '
                                         'not recorded'}
    assert 'nested deeper than 32 levels' in json.dumps(record['deep'])
    assert 'nested deeper than 32 levels' in json.dumps(record['loop'])
    assert record['image'] == {'ndarray': {'shape': [480, 640, 3], 'dtype': 'uint8'}}
    assert len(json.dumps(record)) < 5000

"""The msgpack-numpy wire format matches openpi's encoding and refuses what it cannot carry."""

import numpy as np
import pytest

pytest.importorskip('msgpack', reason="the vla extra: pip install 'pyrua_primitives[vla]'")

from pyrua_primitives.vla.wire import pack, unpack  # noqa: E402, I100


def test_arrays_scalars_and_text_survive_a_round_trip():
    image = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    message = {'observation/image': image, 'state': np.array([0.5, -1.0], np.float32),
               'count': np.int64(7), 'prompt': 'pick up the red block', 'nested': {'k': [1, 2]}}
    back = unpack(pack(message))
    assert back['observation/image'].dtype == np.uint8
    assert np.array_equal(back['observation/image'], image)
    assert back['state'].dtype == np.float32 and back['state'].tolist() == [0.5, -1.0]
    assert back['count'] == 7 and isinstance(back['count'], np.int64)
    assert back['prompt'] == 'pick up the red block' and back['nested'] == {'k': [1, 2]}


def test_arrays_travel_as_openpi_tagged_maps():
    import msgpack

    raw = msgpack.unpackb(pack({'a': np.zeros((2, 7), np.float32)}))
    tagged = raw['a']
    assert tagged[b'__ndarray__'] is True
    assert tagged[b'dtype'] == '<f4' and list(tagged[b'shape']) == [2, 7]
    assert len(tagged[b'data']) == 2 * 7 * 4


def test_object_arrays_and_unknown_types_are_refused():
    with pytest.raises(ValueError, match='dtype object vs numeric'):
        pack({'a': np.array([object()])})
    with pytest.raises(TypeError, match='cannot send set'):
        pack({'a': {1, 2}})


def test_garbage_bytes_are_a_malformed_message():
    with pytest.raises(ValueError, match='malformed policy message'):
        unpack(b'\xc1\x00')


def test_a_missing_extra_names_the_pip_command():
    from pyrua_primitives import MissingDependency
    from pyrua_primitives.vla.wire import require

    with pytest.raises(MissingDependency, match=r"pip install 'pyrua_primitives\[vla\]'"):
        require('pyrua_no_such_module')

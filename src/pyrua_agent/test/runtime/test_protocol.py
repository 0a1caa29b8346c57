"""The host reads only plain data from the worker, so crafted pickles cannot run code."""

import os
import pickle

import numpy as np
from pyrua_agent.runtime import protocol
from pyrua_primitives import CameraIntrinsics
import pytest


def test_plain_data_arrays_and_pyrua_dataclasses_round_trip():
    value = ({'a': [1, 2.5, 'x', None, (True, b'z')]}, np.arange(6, dtype=np.float32),
             CameraIntrinsics(640, 480, 500.0, 500.0, 320.0, 240.0), np.float64(2.0))
    back = protocol.loads_plain(protocol.dumps(value))
    assert back[0] == value[0] and back[2] == value[2] and back[3] == 2.0
    assert np.array_equal(back[1], value[1]) and back[1].dtype == np.float32


@pytest.mark.parametrize('evil', [os.system, eval, pickle.loads])
def test_functions_and_other_globals_are_refused(evil):
    with pytest.raises(pickle.UnpicklingError, match='cannot be passed to a primitive'):
        protocol.loads_plain(pickle.dumps(evil))

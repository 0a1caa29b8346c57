"""The channel carries plain data only: no code, no class by name, nothing deeper than a cap."""

import pickle
import socket
import struct

import msgpack
import numpy as np
from pyrua_agent.runtime import protocol, wire
from pyrua_primitives import CameraIntrinsics
from pyrua_primitives.results import MoveResult
import pytest


def _round_trip(value):
    return wire.from_tree(wire.unpack(wire.pack([wire.to_tree(value, 1 << 20)]))[0])


def test_plain_data_arrays_and_registered_results_round_trip():
    move = MoveResult(reached=True, reason='', arm='left', target_m=(0.1, 0.2, 0.3),
                      final_m=(0.1, 0.2, 0.3), final_heading_rad=0.0, error_m=0.001,
                      duration_s=1.0)
    value = ({'a': [1, 2.5, 'x', None, (True, b'z')], (1, 2): 'tuple key'},
             np.arange(6, dtype=np.float32).reshape(2, 3),
             CameraIntrinsics(640, 480, 500.0, 500.0, 320.0, 240.0), np.float64(2.0), move)
    back = _round_trip(value)
    assert back[0] == value[0] and back[2] == value[2] and back[3] == 2.0
    assert np.array_equal(back[1], value[1]) and back[1].dtype == np.float32
    assert back[1].flags.writeable
    assert back[4] == move and repr(back[4]) == repr(move)


@pytest.mark.parametrize('value', [lambda: 1, {1, 2}, 1j, np.zeros(2, complex),
                                   np.array(['a'], object)])
def test_anything_else_is_refused_on_encoding(value):
    with pytest.raises(wire.WireError, match='cannot be passed'):
        wire.to_tree(value, 1 << 20)


def test_a_dataclass_that_is_not_a_registered_result_is_refused_by_name():
    from pyrua_agent.runtime.limits import WorkerLimits

    with pytest.raises(wire.WireError,
                       match='pyrua_agent.runtime.limits.WorkerLimits cannot be passed'):
        wire.to_tree(WorkerLimits(), 1 << 20)


def test_a_forged_result_key_is_refused_without_importing_anything():
    tree = [wire.RESULT, 'os.system', 'echo hacked']
    with pytest.raises(wire.WireError, match='is not a registered result type'):
        wire.from_tree(tree)


@pytest.mark.parametrize('blob', [pickle.dumps(print), msgpack.packb({'a': 1}),
                                  msgpack.packb(msgpack.ExtType(1, b'x')), b'\xc1'])
def test_pickles_maps_extensions_and_garbage_are_not_messages(blob):
    with pytest.raises(wire.WireError, match='not a valid message|map|extension'):
        wire.unpack(blob)


def test_deep_and_self_containing_values_are_refused_with_the_limit():
    deep: list = []
    for _ in range(1500):
        deep = [deep]
    loop: list = []
    loop.append(loop)
    for value in (deep, loop):
        with pytest.raises(wire.WireError, match='deeper than 32 levels'):
            wire.to_tree(value, 1 << 20)
    forged = [wire.LIST]
    for _ in range(100):
        forged = [wire.LIST, forged]
    with pytest.raises(wire.WireError, match='depth 32'):
        wire.from_tree(forged)


def test_arguments_over_the_byte_limit_are_refused_early():
    with pytest.raises(wire.WireError, match='take more than 1024 bytes'):
        wire.to_tree([0.0] * 10 ** 7, 1024)


def test_an_array_whose_shape_does_not_match_its_bytes_is_refused():
    with pytest.raises(wire.WireError, match='needs 24 bytes, not 3'):
        wire.from_tree([wire.ARRAY, 'float64', b'abc', 3])
    with pytest.raises(wire.WireError, match="dtype 'object' is not allowed"):
        wire.from_tree([wire.ARRAY, 'object', b'', 0])


def test_a_length_over_the_limit_is_refused_before_reading_the_body():
    host, worker = socket.socketpair()
    with host, worker:
        worker.sendall(struct.pack('!I', 3 * 2 ** 30))
        with pytest.raises(protocol.ProtocolError, match='3221225472 bytes vs the limit'):
            protocol.recv(host, 1 << 20)


def test_every_result_a_primitive_declares_is_registered():
    import typing

    from pyrua_primitives.library import PrimitiveLibrary

    registry = set(wire.result_types().values())
    for name, func in vars(PrimitiveLibrary).items():
        if callable(func) and not name.startswith('_'):
            returned = typing.get_type_hints(func).get('return')
            for cls in (returned, *typing.get_args(returned)):
                if isinstance(cls, type) and cls.__module__.startswith('pyrua_primitives'):
                    assert cls in registry, f'{name} returns {cls}, which cannot reach a cell'


def test_large_arrays_travel_as_raw_buffers_and_arrive_writable():
    image = np.arange(480 * 640 * 3, dtype=np.uint8).reshape(480, 640, 3)
    buffers = []
    tree = wire.to_tree({'image': image, 'small': np.ones(3)}, 1 << 24, buffers=buffers)
    assert len(buffers) == 1 and buffers[0].nbytes == image.nbytes
    received = [bytearray(b) for b in buffers]
    back = wire.from_tree(wire.unpack(wire.pack(tree)), received)
    assert np.array_equal(back['image'], image) and back['image'].flags.writeable
    with pytest.raises(wire.WireError, match='its bytes and a shape'):
        wire.from_tree(wire.unpack(wire.pack(tree)), [])


def test_issue_15_results_cross_with_none_for_unknown_values():
    from pyrua_primitives import LocateResult
    from pyrua_primitives.results import ReachResult

    reach = ReachResult(reachable=False, reason='too far', arm='left', target_m=(0.3, 0.1, 0.9),
                        base_distance_m=0.62, tilt_rad=0.0)
    head_only = LocateResult(found=True, reason='', query='red block',
                             position_m=(0.1, -0.2, None), size_m=(0.05, 0.06),
                             heading_rad=0.1, cameras=('head',), pixels=(400,),
                             bound_m=(0.025, 0.03, None), note='only head looked')
    back = _round_trip((reach, [head_only, LocateResult(found=False, reason='nothing')]))
    assert back[0] == reach and back[1][0] == head_only and back[1][1].position_m is None
    assert repr(back[1][0]) == repr(head_only)

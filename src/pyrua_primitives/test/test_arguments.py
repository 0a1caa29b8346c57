"""Argument checks against the primitives' declared signatures (issue 22)."""

import time

import numpy as np
from pyrua_primitives.arguments import SignatureCheck
from pyrua_primitives.errors import PrimitiveError
from pyrua_primitives.library import PrimitiveLibrary, PRIMITIVES
import pytest


def _check(name):
    return SignatureCheck.of(name, getattr(PrimitiveLibrary, name).__get__(object()))


def test_every_registered_primitive_gets_checks_for_its_annotated_parameters():
    checks = {name: _check(name) for name in PRIMITIVES}
    assert set(checks['move_to'].checks) >= {'arm', 'xyz', 'heading', 'descend', 'max_tilt',
                                             'path', 'relative'}
    assert set(checks['vla'].checks) == {'instruction', 'arm', 'steps'}
    assert 'cancel' not in checks['move_to'].checks  # the runtime passes it
    assert repr(checks['wait']) == 'SignatureCheck(robo.wait: seconds)'


@pytest.mark.parametrize('args, kwargs, message', [
    (('left', np.zeros((3, 3))), {},
     'robo.move_to: xyz got a 3x3 float64 array vs a list of numbers (one-dimensional)'),
    (('left', [0.0, 'a', 0.2]), {}, "robo.move_to: xyz item 1: got 'a' vs a number"),
    (('left', [0.0, float('inf'), 0.2]), {}, 'xyz item 1: got inf vs a finite number'),
    (('left', np.array([0.0, np.nan, 0.2])), {}, 'with NaN or inf vs finite numbers'),
    (('left', np.array(['a', 'b', 'c'])), {}, 'a 3 <U1 array vs a list of numbers'),
    (('left', (0, 0, 0.2)), {'heading': 'north'}, "heading got 'north' vs a number"),
    (('left', (0, 0, 0.2)), {'descend': 1}, 'descend got 1 vs True or False'),
    ((['left'], (0, 0, 0.2)), {}, 'arm got a list of 1 items vs a string'),
    (('left', {'x': 1}), {}, 'xyz got a dict of 1 items vs a list of numbers'),
])
def test_move_to_refuses_values_outside_its_signature(args, kwargs, message):
    with pytest.raises(PrimitiveError, match=message.replace('(', r'\(').replace(')', r'\)')
                       .replace('[', r'\[').replace(']', r'\]')):
        _check('move_to').check(args, kwargs)


def test_valid_values_pass_including_numpy_numbers_and_defaults_left_out():
    _check('move_to').check(('left', np.array([0.1, 0.2, 0.3])), {'heading': np.float32(1)})
    _check('move_to').check(('left', [np.int64(0), 0.2, 0.3]), {'descend': np.bool_(True)})
    _check('vla').check(('pick', 'left'), {'steps': np.int64(10)})
    _check('vla').check(('pick', 'left'), {'steps': np.array(10)})
    _check('back_project').check(('head', np.array(320.5), np.float32(240)), {'z': 0})
    _check('locate').check(('red block',), {'cameras': ['head']})
    _check('locate').check(('red block', None), {})
    # A call that does not bind is the primitive's own TypeError to give.
    _check('move_to').check((), {'nonsense': 1})


def test_integer_range_and_text_length_are_limits_with_numbers():
    with pytest.raises(PrimitiveError, match=r'steps got 1099511627776 vs the integer range '
                                             r'-2147483648\.\.2147483647'):
        _check('vla').check(('pick', 'left'), {'steps': 2 ** 40})
    with pytest.raises(PrimitiveError, match='steps got 2.5 vs an integer'):
        _check('vla').check(('pick', 'left', 2.5), {})
    with pytest.raises(PrimitiveError, match='query got a string of 1000000 characters vs at '
                                             'most 1000'):
        _check('locate').check(('q' * 1_000_000,), {})
    with pytest.raises(PrimitiveError, match='cameras item 0: got 3 vs a string'):
        _check('locate').check(('red block', [3]), {})
    with pytest.raises(PrimitiveError, match="cameras got 'head' vs a list of strings"):
        _check('locate').check(('red block', 'head'), {})


def test_huge_or_zero_byte_arrays_are_refused_by_shape_without_being_walked():
    check = _check('move_to')
    started = time.monotonic()
    for array in (np.zeros((3_000_000, 0)), np.zeros(10_000_000, np.uint8)):
        with pytest.raises(PrimitiveError, match='xyz got a'):
            check.check(('left', array), {})
    assert time.monotonic() - started < 1.0


def test_an_object_whose_repr_raises_is_described_by_its_type_only():
    class Evil:
        def __repr__(self):
            raise RuntimeError('boom')

    with pytest.raises(PrimitiveError, match='xyz got an object of type Evil vs a list'):
        _check('move_to').check(('left', Evil()), {})

"""Recorded results and errors come back as the objects the primitives returned."""

import math

import numpy as np
from pyrua_agent.recording.convert import plain
from pyrua_agent.replay.rebuild import rebuild_error, rebuild_result, return_hint
from pyrua_primitives.library import PrimitiveLibrary
from pyrua_primitives.perception.locate import LocateResult
from pyrua_primitives.perception.projection import BackProjectResult
from pyrua_primitives.results import ArmPose
from pyrua_primitives.station import JointState
import pytest


def _record(value):
    return {'result_type': type(value).__name__, 'result_repr': repr(value),
            'fields': plain(value)}


@pytest.mark.parametrize('name, value', [
    ('locate', LocateResult(found=False, reason='nothing red in view', query='red block')),
    ('locate', LocateResult(found=True, reason='', query='blue bowl',
                            position_m=(0.1, 0.2, 0.8), size_m=(0.12, 0.12), height_m=0.05,
                            top_z_m=0.815, heading_rad=0.3, cameras=('head', 'left_wrist'),
                            pixels=(300, 20), height_source='rgb_hull',
                            bound_m=(0.004, 0.004, 0.004))),
    ('locate', LocateResult(found=True, reason='', query='red block',
                            position_m=(0.1, 0.2, None), size_m=(0.05, 0.05),
                            heading_rad=0.3, cameras=('head',), pixels=(300,),
                            bound_m=(0.02, 0.03, None), note='only head looked')),
    ('joints', JointState('left', np.array([0.1, -0.2, 0.3, 0.0, 1.5, -1.0]), np.zeros(6),
                          0.0415, 12.5)),
    ('pose', ArmPose('right', (0.3, -0.1, 0.95), -0.5, 0.02, 0.088)),
    ('back_project', BackProjectResult(hit=False, reason='ray misses the plane',
                                       point_m=None, range_m=None,
                                       camera='head')),
])
def test_library_results_are_rebuilt_with_their_recorded_repr_and_fields(name, value):
    hint = return_hint(getattr(PrimitiveLibrary, name))
    rebuilt, note = rebuild_result(_record(value), hint)
    assert note == '' and type(rebuilt) is type(value) and repr(rebuilt) == repr(value)
    for field in type(value).__dataclass_fields__:
        ours, theirs = getattr(rebuilt, field), getattr(value, field)
        if isinstance(theirs, np.ndarray):
            np.testing.assert_array_equal(ours, theirs)
            assert ours.dtype == theirs.dtype
        elif isinstance(theirs, tuple):
            assert type(ours) is tuple
            np.testing.assert_array_equal(ours, theirs)
        elif isinstance(theirs, float) and math.isnan(theirs):
            assert math.isnan(ours)
        else:
            assert ours == theirs


def test_a_result_that_cannot_be_rebuilt_exactly_says_so():
    value = ArmPose('left', (0.1, 0.2, 0.3), 0.1, 0.0, 0.05)
    record = {**_record(value), 'result_repr': 'ArmPose(something else)'}
    _, note = rebuild_result(record, return_hint(PrimitiveLibrary.pose))
    assert note.startswith("rebuilt ArmPose repr 'ArmPose(left, tcp")
    assert "vs recorded 'ArmPose(something else)'" in note


def test_wait_result_is_a_plain_float():
    rebuilt, note = rebuild_result({'result_type': 'float', 'result_repr': '1.5',
                                    'fields': 1.5}, return_hint(PrimitiveLibrary.wait))
    assert rebuilt == 1.5 and type(rebuilt) is float and note == ''


def test_recorded_errors_keep_their_type_name_and_message():
    value = rebuild_error("ValueError: unknown arm 'lft'; valid: 'left', 'right'")
    assert type(value) is ValueError and str(value) == "unknown arm 'lft'; valid: 'left', 'right'"
    key = rebuild_error("KeyError: 'head'")
    assert isinstance(key, KeyError) and type(key).__name__ == 'KeyError'
    assert str(key) == "'head'"
    custom = rebuild_error('EGLError: context lost\n\tdetail')
    assert type(custom).__name__ == 'EGLError' and str(custom) == 'context lost\n\tdetail'

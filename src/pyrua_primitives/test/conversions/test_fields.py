"""Dataclass <-> message by field name, against rosbags' Jazzy-named types."""

from dataclasses import dataclass
import math

import numpy as np
from pyrua_primitives.conversions import from_message, message_field_names, to_fields
from pyrua_primitives.conversions.actions import result_from_message, result_to_message
from pyrua_primitives.perception.locate import LocateResult
from pyrua_primitives.results import GripperResult, MoveResult
import pytest


def test_move_result_survives_message_and_cdr(typestore, make):
    result = MoveResult(reached=True, reason='', arm='left', target_m=(0.1, -0.2, 0.9),
                        final_m=(0.101, -0.199, 0.902), final_heading_rad=0.5, error_m=0.0024,
                        duration_s=1.5)
    message = result_to_message('move_to', result, make)
    raw = typestore.serialize_cdr(message, 'pyrua_msgs/action/MoveTo_Result')
    back = result_from_message('move_to', typestore.deserialize_cdr(
        raw, 'pyrua_msgs/action/MoveTo_Result'))
    assert back == result
    assert isinstance(back.final_m, tuple) and isinstance(back.final_m[0], float)


def test_locate_not_found_keeps_none_and_empty_tuples(typestore, make):
    result = LocateResult(found=False, reason='nothing red in head', query='red block')
    message = result_to_message('locate', result, make)
    assert np.isnan(message.position_m).all() and message.position_m.shape == (3,)
    raw = typestore.serialize_cdr(message, 'pyrua_msgs/action/Locate_Result')
    back = result_from_message('locate', typestore.deserialize_cdr(
        raw, 'pyrua_msgs/action/Locate_Result'))
    assert back == result
    assert back.position_m is None and back.cameras == () and back.pixels == ()


def test_locate_unmeasured_height_is_none_inside_the_tuple(typestore, make):
    result = LocateResult(found=True, reason='', query='cup', position_m=(0.1, 0.2, None),
                          size_m=(0.05, 0.05), heading_rad=0.0, cameras=('head',),
                          pixels=(10,), bound_m=(0.02, 0.03, None), note='only head looked')
    message = result_to_message('locate', result, make)
    assert math.isnan(message.position_m[2]) and math.isnan(message.height_m)
    raw = typestore.serialize_cdr(message, 'pyrua_msgs/action/Locate_Result')
    back = result_from_message('locate', typestore.deserialize_cdr(
        raw, 'pyrua_msgs/action/Locate_Result'))
    assert back == result and back.position_m[2] is None and back.height_m is None


def test_locate_found_keeps_cameras_and_pixel_counts(make):
    result = LocateResult(found=True, reason='', query='cup', position_m=(0.0, 0.1, 0.8),
                          size_m=(0.05, 0.05), height_m=0.1, top_z_m=0.85, heading_rad=0.0,
                          cameras=('head', 'left_wrist'), pixels=(1200, 3400),
                          height_source='rgb_hull')
    back = result_from_message('locate', result_to_message('locate', result, make))
    assert back == result


def test_gripper_result_round_trip(make):
    result = GripperResult(held=True, reason='', arm='right', action='close', width_m=0.031,
                           commanded_width_m=0.0)
    assert result_from_message('close_gripper',
                               result_to_message('close_gripper', result, make)) == result


@dataclass(frozen=True)
class _Optional:
    cost_usd: float | None
    error: str | None


def test_optional_float_is_nan_and_optional_str_is_empty():
    fields = to_fields(_Optional(None, None))
    assert math.isnan(fields['cost_usd']) and fields['error'] == ''
    back = from_message(_Optional, _Msg(cost_usd=math.nan, error=''))
    assert back == _Optional(None, None)


@dataclass
class _Msg:
    cost_usd: float
    error: str


def test_message_lacking_a_dataclass_field_is_refused(make):
    header = make('std_msgs/msg/Header', stamp=make('builtin_interfaces/msg/Time', sec=0,
                                                    nanosec=0), frame_id='')
    with pytest.raises(ValueError, match=r"lacks fields \['reached'"):
        from_message(MoveResult, header)


def test_extra_envelope_fields_are_added():
    fields = to_fields(_Optional(1.5, 'x'), cell_index=3)
    assert fields == {'cost_usd': 1.5, 'error': 'x', 'cell_index': 3}


def test_field_names_of_rosbags_types_skip_the_type_tag(typestore):
    assert message_field_names(typestore.types['std_msgs/msg/Header']) == ('stamp', 'frame_id')


def test_non_messages_and_non_dataclasses_are_refused():
    with pytest.raises(TypeError, match='not a ROS message'):
        message_field_names(object())
    with pytest.raises(TypeError, match='not a dataclass instance'):
        to_fields(np.zeros(3))

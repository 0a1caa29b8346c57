"""Primitive calls <-> action goals, feedback and aborted-goal errors."""

import math

import numpy as np
from pyrua_primitives.conversions.actions import (
    call_from_goal,
    error_reason,
    feedback_fields,
    goal_fields,
    raise_from_reason,
)
from pyrua_primitives.errors import PrimitiveError
import pytest


@pytest.mark.parametrize('primitive, arguments, expected', [
    ('locate', {'query': 'red block', 'cameras': None}, {'query': 'red block', 'cameras': None}),
    ('locate', {'query': 'cup', 'cameras': ['head']}, {'query': 'cup', 'cameras': ('head',)}),
    ('move_to', {'arm': 'left', 'xyz': [0.1, 0.2, 0.9], 'heading': None},
     {'arm': 'left', 'xyz': (0.1, 0.2, 0.9), 'heading': None, 'descend': False,
      'max_tilt': 0.0, 'path': 'line', 'relative': False}),
    ('move_to', {'arm': 'right', 'xyz': np.array([0.0, 0.1, 1.0]), 'heading': 0.5,
                 'descend': True, 'max_tilt': 0.4, 'path': 'joint', 'relative': True},
     {'arm': 'right', 'xyz': (0.0, 0.1, 1.0), 'heading': 0.5, 'descend': True,
      'max_tilt': 0.4, 'path': 'joint', 'relative': True}),
    ('open_gripper', {'arm': 'left', 'width': 0.05}, {'arm': 'left', 'width': 0.05}),
    ('open_gripper', {'arm': 'left', 'width': None}, {'arm': 'left', 'width': None}),
    ('close_gripper', {'arm': 'right'}, {'arm': 'right'}),
    ('vla', {'instruction': 'wipe', 'arm': 'left', 'steps': 5},
     {'instruction': 'wipe', 'arm': 'left', 'steps': 5}),
])
def test_a_call_survives_goal_cdr_and_back(typestore, make, primitive, arguments, expected):
    from pyrua_primitives.conversions.actions import ACTIONS

    spec = ACTIONS[primitive]
    goal = make(spec.type_name('Goal'), **goal_fields(primitive, arguments))
    raw = typestore.serialize_cdr(goal, spec.type_name('Goal'))
    received = typestore.deserialize_cdr(raw, spec.type_name('Goal'))
    assert call_from_goal(spec.name, received) == (primitive, expected)


def test_argument_a_goal_cannot_carry_is_refused():
    with pytest.raises(TypeError, match=r"\['speed'\] cannot travel in a MoveTo goal"):
        goal_fields('move_to', {'arm': 'left', 'xyz': (0, 0, 1), 'speed': 2.0})


def test_wrong_length_xyz_is_refused():
    with pytest.raises(ValueError, match='xyz of 2 numbers vs 3'):
        goal_fields('move_to', {'arm': 'left', 'xyz': (0, 0)})


def test_unknown_gripper_action_and_primitive_are_refused(make):
    goal = make('pyrua_msgs/action/Gripper_Goal', arm='left', action='opne', width=math.nan)
    with pytest.raises(ValueError, match="did you mean 'open'"):
        call_from_goal('Gripper', goal)
    with pytest.raises(KeyError, match="did you mean 'move_to'"):
        goal_fields('move_too', {})


@pytest.mark.parametrize('error', [ValueError("unknown arm 'lft'"), TypeError('bad type'),
                                   PrimitiveError('broken')])
def test_an_aborted_goal_reraises_the_primitive_error_by_type(error):
    with pytest.raises(type(error), match=str(error.args[0]).replace('(', r'\(')):
        raise_from_reason('move_to', error_reason(error))


def test_an_unknown_error_type_becomes_a_primitive_error():
    with pytest.raises(PrimitiveError, match='move_to goal aborted .* ZeroDivisionError'):
        raise_from_reason('move_to', error_reason(ZeroDivisionError('x')))


def test_feedback_values_fill_the_action_fields(typestore, make):
    fields = feedback_fields('move_to', 0.5, 1.25)
    assert fields == {'stage': '', 'fraction': 0.5, 'elapsed_s': 1.25}
    assert feedback_fields('move_to', 'planning', 0.0)['stage'] == 'planning'
    assert feedback_fields('close_gripper', 0.02, 0.1)['width_m'] == 0.02
    assert feedback_fields('vla', 3, 0.1)['step'] == 3
    message = make('pyrua_msgs/action/MoveTo_Feedback', **feedback_fields(
        'move_to', {'stage': 'moving', 'fraction': 0.25}, 2.0))
    typestore.serialize_cdr(message, 'pyrua_msgs/action/MoveTo_Feedback')


def test_feedback_of_the_wrong_kind_is_refused():
    with pytest.raises(TypeError, match='Locate has no feedback'):
        feedback_fields('locate', 0.5, 0.0)
    with pytest.raises(TypeError, match=r"has no fields \['speed'\]"):
        feedback_fields('move_to', {'speed': 1.0}, 0.0)
    with pytest.raises(TypeError, match='vs a number'):
        feedback_fields('close_gripper', 'closing', 0.0)


def test_goal_value_returns_the_result_of_a_succeeded_or_canceled_goal(make):
    from pyrua_primitives.conversions.actions import goal_value, result_to_message
    from pyrua_primitives.results import MoveResult

    result = MoveResult(reached=False, reason='cancelled: watchdog', arm='left',
                        target_m=(0.1, 0.0, 0.9), final_m=(0.05, 0.0, 0.95),
                        final_heading_rad=0.0, error_m=0.07, duration_s=0.4)
    message = result_to_message('move_to', result, make)
    assert goal_value('move_to', 4, message) == result
    assert goal_value('move_to', 5, message) == result


def test_goal_value_reraises_aborts_and_reports_lost_results(make):
    from pyrua_primitives.conversions.actions import goal_value

    aborted = make('pyrua_msgs/action/Locate_Result', found=False,
                   reason="ValueError: unknown camera 'hed'", query='', position_m=np.zeros(3),
                   size_m=np.zeros(2), height_m=0.0, top_z_m=0.0, heading_rad=0.0, cameras=[],
                   pixels=np.zeros(0, np.int64), height_source='none', bound_m=np.zeros(3),
                   note='', colour='')
    with pytest.raises(ValueError, match="unknown camera 'hed'"):
        goal_value('locate', 6, aborted)
    with pytest.raises(PrimitiveError, match='locate goal failed: /pyrua/locate rejected'):
        goal_value('locate', 6, None, '/pyrua/locate rejected the goal')
    with pytest.raises(PrimitiveError, match='status 2 vs succeeded'):
        goal_value('locate', 2, aborted)

"""The primitive registry: declared once on each method, read by every consumer."""

import inspect
from pathlib import Path

from pyrua_primitives.conversions.actions import ACTIONS
from pyrua_primitives.conversions.interfaces import message_fields
from pyrua_primitives.library import ACTING, HOST_METHODS, PrimitiveLibrary, PRIMITIVES
from pyrua_primitives.registry import (
    action_type,
    ACTION_TYPES,
    ActionType,
    declared_primitives,
    primitive,
)
from pyrua_primitives.ros.names import action_name
import pytest

MSGS = Path(__file__).resolve().parents[2] / 'pyrua_msgs' / 'action'


def test_every_public_library_method_is_a_declared_primitive():
    public = {name for name, _ in inspect.getmembers(PrimitiveLibrary, inspect.isfunction)
              if not name.startswith('_') and name not in HOST_METHODS}
    assert public == set(PRIMITIVES)
    assert not set(HOST_METHODS) & set(PRIMITIVES)


def test_acting_set_and_action_table_come_from_the_declarations():
    assert ACTING == tuple(sorted(n for n, p in PRIMITIVES.items() if p.acting))
    assert {'move_to', 'home', 'open_gripper', 'close_gripper'} <= set(ACTING)
    assert {n: s.name for n, s in ACTIONS.items()} == {
        n: p.action for n, p in PRIMITIVES.items() if p.action}
    assert PRIMITIVES['close_gripper'].goal == {'action': 'close'}


def test_action_types_have_a_definition_a_result_and_a_ros_name():
    defined = sorted(p.stem for p in MSGS.glob('*.action'))
    assert sorted(ACTION_TYPES) == defined
    for name, kind in ACTION_TYPES.items():
        assert isinstance(kind, ActionType) and kind.name == name
        assert action_name(name) == kind.ros_name  # ros/names reads the one table
        assert kind.result_class().__name__.endswith('Result')
        feedback = message_fields(kind.type_name('Feedback'))
        assert kind.feedback == bool(feedback), f'{name}: feedback flag vs {feedback}'


def test_an_unknown_action_type_name_lists_the_registered_ones():
    with pytest.raises(KeyError, match="unknown action type 'Move'; did you mean 'MoveTo'"):
        action_type('Move')
    with pytest.raises(KeyError, match="unknown action type 'Grasp'"):
        action_name('Grasp')


def test_an_unknown_action_type_is_refused_where_it_is_declared():
    with pytest.raises(ValueError, match="action 'Grip' vs one of"):
        primitive(action='Grip')


def test_declarations_are_read_in_definition_order():
    class Toy:
        @primitive(acting=True)
        def push(self):
            """Push."""

        def helper(self):
            """Not a primitive."""

        @primitive()
        def look(self):
            """Look."""

    assert list(declared_primitives(Toy)) == ['push', 'look']

"""The goal <-> kwargs mapping is derived from the .action Goal fields and the signatures."""

import inspect
import shutil

from pyrua_primitives.arguments import RUNTIME_KEYWORDS
from pyrua_primitives.conversions.actions import ACTIONS, goal_mapping
from pyrua_primitives.conversions.goal_mapping import goal_mappings
from pyrua_primitives.conversions.interfaces import (
    interface_dir,
    message_fields,
    rosbags_factory,
    rosbags_typestore,
)
from pyrua_primitives.library import PrimitiveLibrary, PRIMITIVES
from pyrua_primitives.registry import declared_primitives, primitive
import pytest


@pytest.fixture
def msgs(tmp_path):
    """Return a copy of pyrua_msgs whose files a test may change."""
    root = tmp_path / 'pyrua_msgs'
    shutil.copytree(interface_dir(), root)
    return root


def _add_goal_field(root, action, line):
    path = root / 'action' / f'{action}.action'
    goal, rest = path.read_text().split('\n---\n', 1)
    path.write_text(f'{goal}\n{line}\n---\n{rest}')


@pytest.mark.parametrize('name', sorted(ACTIONS))
def test_each_mapping_is_the_goal_fields_against_the_signature(name):
    mapping = goal_mapping(name)
    goal = [f.name for f in message_fields(ACTIONS[name].type_name('Goal'))]
    params = [p for p in inspect.signature(getattr(PrimitiveLibrary, name)).parameters
              if p != 'self' and p not in RUNTIME_KEYWORDS]
    assert [f.name for f in mapping.fields] == goal
    assert list(mapping.parameters) == params
    assert set(params) | set(mapping.implied) <= set(goal)
    assert dict(mapping.implied) == dict(PRIMITIVES[name].goal)


def test_a_new_goal_field_reaches_the_mapping_of_a_primitive_that_takes_it(msgs):
    _add_goal_field(msgs, 'MoveTo', 'float64 speed_mps  # tool speed, metres per second')

    class Library:
        @primitive(acting=True, action='MoveTo')
        def move_to(self, arm, xyz, heading=None, *, descend=False, max_tilt=0.0,
                    path='line', relative=False, speed_mps=0.1, cancel=None):
            """Move."""

    mapping = goal_mappings(declared_primitives(Library), msgs)['move_to']
    assert mapping.parameters[-1] == 'speed_mps' and mapping.defaults['speed_mps'] == 0.1
    fields = mapping.goal_fields({'arm': 'left', 'xyz': (0.1, 0.0, 0.9), 'speed_mps': 0.25})
    assert fields['speed_mps'] == 0.25 and fields['path'] == 'line'
    store = rosbags_typestore(msgs)  # the changed file's types, through CDR and back
    goal_type = 'pyrua_msgs/action/MoveTo_Goal'
    raw = store.serialize_cdr(rosbags_factory(store)(goal_type, **fields), goal_type)
    assert mapping.kwargs(store.deserialize_cdr(raw, goal_type))['speed_mps'] == 0.25


def test_a_goal_field_no_primitive_takes_is_refused_naming_it(msgs):
    _add_goal_field(msgs, 'MoveTo', 'float64 speed_mps  # tool speed, metres per second')
    with pytest.raises(ValueError, match=r"MoveTo.action Goal field 'speed_mps' is taken by "
                                         r"none of \['move_to'\]"):
        goal_mappings(PRIMITIVES, msgs)


def test_a_parameter_without_a_goal_field_is_refused_naming_it():
    class Library:
        @primitive(action='Locate')
        def locate(self, query, cameras=None, colour=''):
            """Locate."""

    with pytest.raises(ValueError, match=r"locate\(\) parameter 'colour' has no field in "
                                         r"Locate.action's Goal \['cameras', 'query'\]; add "
                                         r'the field to src/pyrua_msgs/action/Locate.action'):
        goal_mappings(declared_primitives(Library))


def test_primitives_sharing_an_action_must_imply_distinct_goal_fields():
    class Library:
        @primitive(action='Gripper', goal={'action': 'open'})
        def open_gripper(self, arm, width=None):
            """Open."""

        @primitive(action='Gripper', goal={'action': 'open'})
        def close_gripper(self, arm):
            """Close."""

    with pytest.raises(ValueError, match='give each a distinct @primitive'):
        goal_mappings(declared_primitives(Library))


def test_an_empty_goal_value_is_the_parameter_default(make):
    goal = make('pyrua_msgs/action/MoveTo_Goal', arm='left', xyz=[0.1, 0.0, 0.9],
                heading=float('nan'), descend=False, max_tilt=float('nan'), path='',
                relative=False)
    kwargs = goal_mapping('move_to').kwargs(goal)
    assert (kwargs['heading'], kwargs['max_tilt'], kwargs['path']) == (None, 0.0, 'line')


def test_a_bare_string_or_an_empty_list_for_a_list_field_is_refused():
    mapping = goal_mapping('locate')
    with pytest.raises(TypeError, match=r"cameras='head' vs a list; write cameras=\['head'\]"):
        mapping.goal_fields({'query': 'cup', 'cameras': 'head'})
    with pytest.raises(ValueError, match=r'cameras=\[\] vs at least one item'):
        mapping.goal_fields({'query': 'cup', 'cameras': []})
    with pytest.raises(TypeError, match="locate\\(\\) missing argument 'query'"):
        mapping.goal_fields({'cameras': None})

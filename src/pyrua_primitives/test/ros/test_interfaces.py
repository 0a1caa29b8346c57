"""pyrua_msgs: every interface file parses, round-trips through CDR and mirrors its dataclass."""

import dataclasses
import re

import numpy as np
from pyrua_primitives.conversions.actions import ACTIONS, goal_fields
from pyrua_primitives.conversions.interfaces import interface_definitions, interface_dir
import pytest

FIELD_NAME = re.compile(r'^[a-z][a-z0-9_]*$')
TYPE_NAME = re.compile(r'^[A-Z][A-Za-z0-9]*$')
EXPECTED_FILES = {
    'action': {'Gripper', 'Locate', 'MoveTo', 'VlaRollout'},
    'msg': {'CellRecord', 'EpisodeEvent', 'LlmCall', 'PrimitiveCall', 'ShownImage'},
    'srv': {'ResetTask', 'TaskStatus'},
}


def _sample(typestore, type_name):
    """Build a message of ``type_name`` with a distinct value in every field."""
    from rosbags.typesys.base import Nodetype

    _consts, fields = typestore.fielddefs[type_name]
    values = {}
    for i, (name, (node, detail)) in enumerate(fields):
        values[name] = _value(typestore, Nodetype, node, detail, i)
    return typestore.types[type_name](**values)


def _value(typestore, nodetype, node, detail, i):
    if node == nodetype.BASE:
        kind = detail[0]
        if kind == 'string':
            return f'text {i}'
        if kind == 'bool':
            return i % 2 == 0
        if kind.startswith('float'):
            return 0.25 + i
        return i + 1
    if node == nodetype.NAME:
        return _sample(typestore, detail)
    (inner_node, inner), size = detail
    count = size or 2
    if inner_node == nodetype.BASE and inner[0] != 'string':
        dtype = {'float64': np.float64, 'int64': np.int64, 'int32': np.int32}[inner[0]]
        return np.arange(count, dtype=dtype) + i
    return [_value(typestore, nodetype, inner_node, inner, i + k) for k in range(count)]


def _same(a, b):
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def test_interface_files_are_the_expected_set():
    root = interface_dir()
    for kind, stems in EXPECTED_FILES.items():
        assert {p.stem for p in (root / kind).glob(f'*.{kind}')} == stems


def test_cmakelists_generates_every_interface_file():
    root = interface_dir()
    cmake = (root / 'CMakeLists.txt').read_text()
    for kind, stems in EXPECTED_FILES.items():
        for stem in stems:
            assert f'"{kind}/{stem}.{kind}"' in cmake, f'add {kind}/{stem}.{kind} to CMakeLists'


def test_every_definition_parses_and_round_trips_through_cdr(typestore):
    definitions = interface_definitions()
    assert len(definitions) == 5 + 2 * 2 + 4 * 3
    for type_name in definitions:
        message = _sample(typestore, type_name)
        raw = typestore.serialize_cdr(message, type_name)
        back = typestore.deserialize_cdr(raw, type_name)
        assert _same(message, back), type_name


def test_names_follow_the_rosidl_rules_and_every_field_has_a_unit_comment():
    root = interface_dir()
    for path in sorted(root.glob('*/*.*')):
        if path.suffix not in ('.msg', '.srv', '.action'):
            continue
        assert TYPE_NAME.match(path.stem), path.name
        for line in path.read_text().splitlines():
            code, _, comment = line.partition('#')
            if not code.strip() or code.strip() == '---':
                continue
            field = code.split()[1]
            assert FIELD_NAME.match(field) and '__' not in field and not field.endswith('_'), (
                f'{path.name}: field name {field!r} breaks the rosidl naming rule')
            assert comment.strip(), f'{path.name}: field {field!r} needs a comment with units'


def _result_class(spec):
    try:
        return spec.result_class()
    except ImportError as exc:
        pytest.fail(f'{spec.result} cannot be imported ({exc}); every action needs its result '
                    'dataclass')


@pytest.mark.parametrize('primitive', sorted(ACTIONS))
def test_action_result_fields_mirror_the_result_dataclass_both_ways(typestore, primitive):
    spec = ACTIONS[primitive]
    cls = _result_class(spec)
    _consts, fields = typestore.fielddefs[spec.type_name('Result')]
    message_fields = [name for name, _ in fields]
    dataclass_fields = [f.name for f in dataclasses.fields(cls)]
    assert message_fields == dataclass_fields, (
        f'{spec.name}.action result {message_fields} vs {cls.__name__} {dataclass_fields}; '
        'keep them one to one, same order')


GOAL_CALLS = {
    'locate': {'query': 'red block', 'cameras': ('head',)},
    'move_to': {'arm': 'left', 'xyz': (0.1, 0.0, 0.9), 'heading': None, 'descend': False,
                'max_tilt': 0.3, 'path': 'line', 'relative': False},
    'open_gripper': {'arm': 'left', 'width': None},
    'close_gripper': {'arm': 'right'},
    'vla': {'instruction': 'wipe', 'arm': 'left', 'steps': 10},
}


@pytest.mark.parametrize('primitive', sorted(ACTIONS))
def test_goal_fields_of_a_call_are_exactly_the_goal_message_fields(typestore, make, primitive):
    spec = ACTIONS[primitive]
    _consts, fields = typestore.fielddefs[spec.type_name('Goal')]
    values = goal_fields(primitive, GOAL_CALLS[primitive])
    assert sorted(values) == sorted(name for name, _ in fields)
    message = make(spec.type_name('Goal'), **values)
    typestore.serialize_cdr(message, spec.type_name('Goal'))


def test_goal_fields_are_the_library_parameters():
    library = pytest.importorskip('pyrua_primitives.library',
                                  reason='the primitive library is not written yet')
    import inspect

    for primitive, call in GOAL_CALLS.items():
        method = getattr(library.PrimitiveLibrary, primitive, None)
        if method is None:
            continue
        params = set(inspect.signature(method).parameters) - {'self', 'cancel', 'feedback'}
        assert set(call) == params, f'{primitive}: goal arguments {set(call)} vs {params}'

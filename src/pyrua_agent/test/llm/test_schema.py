"""Tool schemas generated from Python signatures and rclpy-style docstrings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Optional

from pyrua_agent.llm import function_schema
from pyrua_agent.llm.schema import parse_docstring
import pytest


def move_to(arm: Literal['left', 'right'], xyz_m: Sequence[float], speed_mps: float = 0.1,
            yaw_deg: Optional[float] = None, settle: bool = True) -> object:
    """
    Move the gripper centre to a point in the world frame.

    The path is checked before the arm moves.

    :param arm: which arm, ``'left'`` or ``'right'``.
    :param xyz_m: target point in metres,
        world frame.
    :param speed_mps: tool speed in metres per second.
    :param yaw_deg: gripper yaw in degrees; keep the current one when omitted.
    :returns: a MoveResult; ``reached=False`` with a reason when refused.
    :raises ValueError: for an unknown arm.
    """


def open_gripper(arm: str, width_m: float | None = None, pose: tuple[float, float, float] = (
        0.0, 0.0, 0.0), retries: int = 2, tags: list[str] | None = None,
        *, key: int | str) -> None:
    """Open the gripper."""


def test_schema_of_a_motion_primitive():
    schema = function_schema(move_to)
    function = schema['function']
    assert schema['type'] == 'function'
    assert function['name'] == 'move_to'
    assert function['description'] == (
        'Move the gripper centre to a point in the world frame.\n\n'
        'The path is checked before the arm moves.\n\n'
        'Returns: a MoveResult; ``reached=False`` with a reason when refused.')
    parameters = function['parameters']
    assert parameters['required'] == ['arm', 'xyz_m']
    assert parameters['additionalProperties'] is False
    props = parameters['properties']
    assert props['arm'] == {'type': 'string', 'enum': ['left', 'right'],
                            'description': "which arm, ``'left'`` or ``'right'``."}
    assert props['xyz_m'] == {'type': 'array', 'items': {'type': 'number'},
                              'description': 'target point in metres, world frame.'}
    assert props['speed_mps']['type'] == 'number'
    assert props['speed_mps']['default'] == 0.1
    assert props['yaw_deg']['type'] == ['number', 'null']
    assert props['yaw_deg']['default'] is None
    assert props['settle'] == {'type': 'boolean', 'default': True}


def test_schema_maps_unions_fixed_tuples_ints_and_lists():
    function = function_schema(open_gripper, name='open')['function']
    assert function['name'] == 'open'
    props = function['parameters']['properties']
    assert props['arm'] == {'type': 'string'}
    assert props['width_m'] == {'type': ['number', 'null'], 'default': None}
    assert props['pose'] == {'type': 'array', 'items': {'type': 'number'}, 'minItems': 3,
                             'maxItems': 3, 'default': [0.0, 0.0, 0.0]}
    assert props['retries'] == {'type': 'integer', 'default': 2}
    assert props['tags'] == {'type': ['array', 'null'], 'items': {'type': 'string'},
                             'default': None}
    assert props['key'] == {'anyOf': [{'type': 'integer'}, {'type': 'string'}]}


def test_bound_method_drops_self():
    class Robo:
        def look(self, camera: str = 'head') -> None:
            """Capture one camera image."""

    function = function_schema(Robo().look)['function']
    assert list(function['parameters']['properties']) == ['camera']
    assert function['description'] == 'Capture one camera image.'


def test_star_args_and_missing_hints_are_refused():
    def spread(*arms: str) -> None:
        """Bad."""

    def untyped(arm) -> None:
        """Bad."""

    with pytest.raises(TypeError, match=r"parameter 'arms' is \*args"):
        function_schema(spread)
    with pytest.raises(TypeError, match="parameter 'arm' has no type hint"):
        function_schema(untyped)


def test_unmapped_type_is_refused_with_the_supported_list():
    def bad(when: complex) -> None:
        """Bad."""

    with pytest.raises(TypeError, match='no JSON schema mapping; use int, float'):
        function_schema(bad)


def test_docstring_without_fields_is_all_description():
    assert parse_docstring('Say hello.') == ('Say hello.', {})

"""Config dataclasses <-> typed ROS parameters (what config_from_node declares and reads)."""

from dataclasses import dataclass, field
import math

from pyrua_primitives.library import LibraryConfig
from pyrua_primitives.ros.config import PrimitivesNodeConfig, RosStationConfig
from pyrua_primitives.ros.parameters import (
    check_overrides,
    config_from_values,
    flatten,
    parameter_defaults,
)
import pytest


@dataclass(frozen=True, kw_only=True)
class _Inner:
    rate_hz: float = 10.0
    limits: tuple[float, ...] = (0.5, 1.0)


@dataclass(frozen=True, kw_only=True)
class _Outer:
    name: str = 'x'
    count: int = 3
    temperature: float | None = None
    effort: str | None = None
    tokens: int | None = None
    inner: _Inner = field(default_factory=_Inner)


def test_leaves_become_typed_dotted_parameters():
    assert parameter_defaults(_Outer) == {
        'name': 'x', 'count': 3, 'temperature': pytest.approx(math.nan, nan_ok=True),
        'effort': '', 'tokens': 0, 'inner.rate_hz': 10.0, 'inner.limits': [0.5, 1.0]}
    assert isinstance(parameter_defaults(_Outer)['inner.rate_hz'], float)


def test_values_build_the_config_back_with_unset_optionals_as_none():
    values = parameter_defaults(_Outer)
    assert config_from_values(_Outer, values) == _Outer()
    changed = config_from_values(_Outer, {**values, 'temperature': 0.0, 'inner.limits': [2, 3],
                                          'tokens': 100})
    assert changed.temperature == 0.0 and changed.inner.limits == (2.0, 3.0)
    assert changed.tokens == 100


def test_node_configs_have_a_parameter_for_every_leaf_and_round_trip():
    defaults = parameter_defaults(PrimitivesNodeConfig)
    assert defaults['library.motion.tcp_speed_m_s'] == LibraryConfig().motion.tcp_speed_m_s
    assert defaults['station.trajectory_action'] == RosStationConfig().trajectory_action
    assert config_from_values(PrimitivesNodeConfig, defaults) == PrimitivesNodeConfig()


def test_empty_tuple_default_is_refused_because_rclpy_would_make_it_a_byte_array():
    @dataclass(frozen=True)
    class Bad:
        cameras: tuple[str, ...] = ()

    with pytest.raises(TypeError, match='BYTE_ARRAY'):
        parameter_defaults(Bad)


def test_overrides_with_wrong_types_or_names_are_reported():
    problems = check_overrides(_Outer, {'count': 3.0, 'inner': {'rate_hz': 5, 'limits': [1]},
                                        'nmae': 'y', 'use_sim_time': True})
    assert len(problems) == 4
    text = '\n'.join(problems)
    assert "parameter 'count' is float 3.0 vs declared int (default 3)" in text
    assert "did you mean 'name'" in text
    assert "'inner.rate_hz' is int 5 vs declared float" in text
    assert 'list items [1] vs float items' in text
    assert check_overrides(_Outer, {'name': 'z', 'inner': {'rate_hz': 5.0}}) == []


def test_flatten_nests_yaml_maps_into_dotted_names():
    nested = {'a': {'b': 1, 'c': {'d': 'x'}}, 'e': [1]}
    assert flatten(nested) == {'a.b': 1, 'a.c.d': 'x', 'e': [1]}


def test_invalid_values_fail_the_dataclass_validation():
    with pytest.raises(ValueError, match="unknown gripper interface 'teleport'"):
        config_from_values(RosStationConfig, {'gripper_interface': 'teleport'})

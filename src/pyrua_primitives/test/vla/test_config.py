"""VlaConfig: the endpoint is parsed as host:port and every number is bounded."""

from pyrua_primitives.vla import VlaConfig
import pytest


@pytest.mark.parametrize('endpoint, expected', [
    ('127.0.0.1:8000', ('127.0.0.1', 8000)),
    ('ws://policy.local:9000', ('policy.local', 9000)),
    ('ws://[::1]:8001/', ('::1', 8001)),
])
def test_endpoint_gives_host_and_port(endpoint, expected):
    assert VlaConfig(endpoint=endpoint).host_port() == expected


@pytest.mark.parametrize('endpoint', ['localhost', 'http://a:1', 'a:port', 'ws://a:1/x'])
def test_malformed_endpoint_is_refused_with_the_expected_form(endpoint):
    with pytest.raises(ValueError, match="vs 'host:port'"):
        VlaConfig(endpoint=endpoint)


def test_no_endpoint_means_no_vla_and_cannot_give_an_address():
    config = VlaConfig()
    assert config.endpoint == ''
    with pytest.raises(ValueError, match="vla.endpoint=''"):
        config.host_port()


@pytest.mark.parametrize('field, value', [('control_hz', 0.0), ('replan_steps', 0),
                                          ('timeout_s', float('nan')), ('segment_steps', True)])
def test_out_of_range_settings_are_refused_naming_the_field(field, value):
    with pytest.raises(ValueError, match=f'vla.{field}='):
        VlaConfig(**{field: value})


def test_empty_state_key_is_refused():
    with pytest.raises(ValueError, match='vla.state_key is empty'):
        VlaConfig(state_key='')

"""WebsocketPolicyClient against a real openpi-protocol server on 127.0.0.1."""

import time

import numpy as np
from pyrua_primitives.vla import PolicyClient, PolicyError, VlaConfig, WebsocketPolicyClient
import pytest


def _client(port, **kwargs):
    return WebsocketPolicyClient('127.0.0.1', port, **kwargs)


def test_client_reads_metadata_and_gets_the_scripted_chunk(policy_server, policy):
    policy.reset(lambda obs, count: {'actions': np.full((3, 7), 0.25, np.float32),
                                     'server_timing': {'infer_ms': 1.0}})
    observation = {'observation/state': np.zeros(7, np.float32), 'prompt': 'wave'}
    with _client(policy_server.port) as client:
        assert isinstance(client, PolicyClient)
        assert client.metadata == {'name': 'scripted', 'action_horizon': 8}
        reply = client.infer(observation)
        reply_again = client.infer(observation)
    assert reply['actions'].shape == (3, 7) and np.all(reply['actions'] == 0.25)
    assert np.array_equal(reply_again['actions'], reply['actions'])
    assert [o['prompt'] for o in policy.observations] == ['wave', 'wave']
    assert 'closed' in repr(client)


def test_client_from_config_uses_the_endpoint(policy_server):
    config = VlaConfig(endpoint=f'127.0.0.1:{policy_server.port}', timeout_s=2.0)
    client = WebsocketPolicyClient.from_config(config)
    assert client.uri == f'ws://127.0.0.1:{policy_server.port}' and client.timeout_s == 2.0
    assert _client(0).uri == 'ws://127.0.0.1:0'
    assert WebsocketPolicyClient('::1', 8000).uri == 'ws://[::1]:8000'


def test_closed_port_is_a_policy_error_at_once(closed_port):
    start = time.monotonic()
    with pytest.raises(PolicyError, match=rf'ws://127.0.0.1:{closed_port} not reachable'):
        _client(closed_port, connect_timeout_s=2.0).connect()
    assert time.monotonic() - start < 2.0


def test_slow_policy_is_a_timeout_not_a_hang(policy_server, policy):
    def slow(obs, count):
        time.sleep(1.0)
        return {'actions': np.zeros((1, 7))}

    policy.reset(slow)
    start = time.monotonic()
    with _client(policy_server.port, timeout_s=0.2) as client:
        with pytest.raises(PolicyError, match=r'no reply .* within 0.2 s vs vla.timeout_s'):
            client.infer({'prompt': 'x'})
    assert time.monotonic() - start < 1.0


def test_policy_exception_comes_back_as_a_policy_error_with_its_message(policy_server, policy):
    def broken(obs, count):
        raise KeyError('observation/state missing')

    policy.reset(broken)
    with _client(policy_server.port) as client:
        with pytest.raises(PolicyError, match="failed: KeyError: 'observation/state missing'"):
            client.infer({'prompt': 'x'})

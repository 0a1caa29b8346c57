"""Fixtures for the LLM client tests: clients against the package's loopback server."""


from pyrua_agent.accounting import Ledger
from pyrua_agent.llm import ChatClient, EndpointConfig
import pytest


@pytest.fixture
def make_client(server):
    """Build clients against the loopback server with millisecond backoff; closes them."""
    clients = []

    def make(sleep=None, prices=None, **overrides):
        settings = {'base_url': server.base_url, 'model': 'loopback', 'timeout_s': 5.0,
                    'max_retries': 2, 'backoff_initial_s': 0.001, 'backoff_max_s': 0.05}
        settings.update(overrides)
        extra = {'sleep': sleep} if sleep is not None else {}
        client = ChatClient(EndpointConfig(**settings), ledger=Ledger(), prices=prices, **extra)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()

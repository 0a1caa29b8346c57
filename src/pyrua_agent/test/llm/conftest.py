"""Fixtures for the LLM client tests: one loopback server per session, reset per test."""

import os

from pyrua_agent.accounting import Ledger
from pyrua_agent.llm import ChatClient, EndpointConfig
from pyrua_agent.testing import LoopbackLLMServer
import pytest


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch):
    """Keep the developer's OPENAI_* settings out of the tests."""
    for name in list(os.environ):
        if name.startswith('OPENAI_'):
            monkeypatch.delenv(name)


@pytest.fixture(scope='session')
def session_server():
    with LoopbackLLMServer() as server:
        yield server


@pytest.fixture
def server(session_server):
    """Return the session's loopback server with an empty script and no recorded requests."""
    session_server.reset()
    session_server.prompt_caching = True
    session_server.images_in_tool_messages = False
    session_server.context_tokens = None
    return session_server


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

"""Fixtures of the lab package: the developer's shell stays out of every test."""

import os

import pytest


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch):
    """Keep LLM endpoint and ROS settings of the developer's shell out of every test."""
    for name in list(os.environ):
        if name.startswith(('OPENAI_', 'ROS_')):
            monkeypatch.delenv(name)

"""A rosbags typestore with the Jazzy types plus pyrua_msgs, and a message factory over it."""

import pytest


@pytest.fixture(scope='session')
def typestore():
    """Return the Jazzy typestore with every pyrua_msgs type registered."""
    pytest.importorskip('rosbags.typesys', reason='rosbags: see requirements/test.txt')
    from pyrua_primitives.conversions.interfaces import rosbags_typestore

    return rosbags_typestore()


@pytest.fixture(scope='session')
def make(typestore):
    """Return the factory that builds rosbags messages by type name."""
    from pyrua_primitives.conversions.interfaces import rosbags_factory

    return rosbags_factory(typestore)

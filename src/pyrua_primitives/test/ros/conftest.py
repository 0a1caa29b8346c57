"""A rosbags typestore with the Jazzy types plus pyrua_msgs, and a message factory over it."""

import pytest

rosbags_typesys = pytest.importorskip('rosbags.typesys', reason='rosbags is a test dependency '
                                      '(requirements/test.txt)')


@pytest.fixture(scope='session')
def typestore():
    """Return the Jazzy typestore with every pyrua_msgs type registered."""
    from pyrua_primitives.conversions.interfaces import register_interfaces

    store = rosbags_typesys.get_typestore(rosbags_typesys.Stores.ROS2_JAZZY)
    register_interfaces(store)
    return store


@pytest.fixture(scope='session')
def make(typestore):
    """Return the factory that builds rosbags messages by type name."""
    def build(type_name, **fields):
        return typestore.types[type_name](**fields)
    return build

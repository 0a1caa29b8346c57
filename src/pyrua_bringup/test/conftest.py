"""
Fixtures of the bringup tests: the rosbags typestore and factory, and the rclpy double.

``rclpy_double.py`` is loaded once per session under its own module name; the ``ros``
fixture installs it as rclpy (and tf2_ros, cv_bridge, the message packages) for one test,
then forgets every ``pyrua_*.ros.*`` module imported against it.
"""

import importlib.util
from pathlib import Path
import sys

import pytest


def _load_double():
    if 'rclpy_double' not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            'rclpy_double', Path(__file__).with_name('rclpy_double.py'))
        module = importlib.util.module_from_spec(spec)
        sys.modules['rclpy_double'] = module
        spec.loader.exec_module(module)
    return sys.modules['rclpy_double']


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


@pytest.fixture
def ros(monkeypatch, typestore):
    """Install the rclpy double for one test; yield it."""
    double = _load_double()
    double.install(monkeypatch, typestore)
    yield double
    for name in [n for n in sys.modules if '.ros.' in n and n.startswith('pyrua_')]:
        del sys.modules[name]

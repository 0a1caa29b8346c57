"""
Fixtures of the bringup tests: the rosbags typestore and factory, and the rclpy double.

The folder's helper modules (``rclpy_double``, ``launch_sections``) are loaded from here,
since pytest's importlib mode puts no test folder on ``sys.path``.

``rclpy_double.py`` is loaded once per session under its own module name; the ``ros``
fixture installs it as rclpy (and tf2_ros, cv_bridge, the message packages) for one test,
then forgets every ``pyrua_*.ros.*`` module imported against it.
"""

import importlib.util
from pathlib import Path
import sys

import pytest


def _load(name):
    """Load this folder's helper module ``name`` once, importable as ``import name``."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).with_name(f'{name}.py'))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_load('launch_sections')  # before the test modules import it (pytest's importlib mode)


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
    double = _load('rclpy_double')
    double.install(monkeypatch, typestore)
    yield double
    for name in [n for n in sys.modules if '.ros.' in n and n.startswith('pyrua_')]:
        del sys.modules[name]

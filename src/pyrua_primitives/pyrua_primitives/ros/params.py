"""``config_from_node``: declare a config dataclass as typed ROS parameters and read it back."""

from __future__ import annotations

from typing import Any, TypeVar

from rclpy.node import Node

from .parameters import config_from_values, parameter_defaults

Config = TypeVar('Config')


def config_from_node(node: Node, cls: type[Config]) -> Config:
    """
    Declare one parameter per leaf field of ``cls`` and build ``cls`` from their values.

    The defaults are the dataclass defaults (typed, see ``parameters``); launch files and
    YAML override them. Reading happens once, at start-up.

    :param node: the node that owns the parameters.
    :param cls: the config dataclass.
    :returns: the config.
    :raises ValueError: when a value fails the dataclass validation (naming it).
    """
    defaults = parameter_defaults(cls)
    for name, value in defaults.items():
        node.declare_parameter(name, value)
    values: dict[str, Any] = {name: node.get_parameter(name).value for name in defaults}
    return config_from_values(cls, values)

"""
The ROS 2 Jazzy type store of a recording, with the project's ``pyrua_msgs`` types added.

Types come from the ``.msg``, ``.srv`` and ``.action`` files themselves, read and split by
``pyrua_primitives.conversions.interfaces`` (the one loader of the workspace) and parsed by
``rosbags``, so no ROS install is needed. Where the files are found is said there
(``PYRUA_MSGS_DIR``, the source tree, ``AMENT_PREFIX_PATH``). When no definitions are
found, only the standard types are available and typed primitive goals and results are
not written (the JSON records always are).
"""

from __future__ import annotations

from dataclasses import dataclass
import logging
from pathlib import Path
from typing import Any

from pyrua_primitives.conversions.interfaces import interface_dir, PACKAGE, register_interfaces
from rosbags.typesys import get_typestore, Stores

_LOG = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ProjectTypes:
    """
    A rosbags type store with the ``pyrua_msgs`` definitions registered.

    ``source`` is the directory the definitions came from (None when none was found);
    ``actions`` names the registered actions, e.g. ``('Gripper', 'Locate')``.
    """

    store: Any
    source: Path | None
    actions: tuple[str, ...]
    messages: tuple[str, ...]

    def __repr__(self) -> str:
        where = self.source if self.source is not None else 'no pyrua_msgs found'
        return (f'ProjectTypes({len(self.actions)} actions, {len(self.messages)} messages '
                f'from {where})')

    def action_type(self, action: str, part: str) -> str | None:
        """Return ``pyrua_msgs/action/<action>_<part>`` if registered, else None."""
        name = f'{PACKAGE}/action/{action}_{part}'
        return name if action in self.actions else None


def find_msgs_dir() -> Path | None:
    """Return the ``pyrua_msgs`` directory with interface files, or None when there is none."""
    try:
        return interface_dir()
    except FileNotFoundError:
        return None


def load_project_types(msgs_dir: Path | None = None) -> ProjectTypes:
    """
    Return the Jazzy type store with the ``pyrua_msgs`` types registered.

    :param msgs_dir: the package directory; found with ``find_msgs_dir()`` when None.
    :raises ValueError: for a malformed interface file (named in the message).
    """
    store = get_typestore(Stores.ROS2_JAZZY)
    root = msgs_dir if msgs_dir is not None else find_msgs_dir()
    names = register_interfaces(store, root) if root is not None else ()
    if not names:
        _LOG.info('no pyrua_msgs definitions found; typed primitive messages are off')
        return ProjectTypes(store=store, source=None, actions=(), messages=())
    actions = sorted({n.split('/')[-1].rsplit('_', 1)[0] for n in names if '/action/' in n})
    messages = sorted(n.split('/')[-1] for n in names if '/msg/' in n)
    return ProjectTypes(store=store, source=Path(root), actions=tuple(actions),
                        messages=tuple(messages))

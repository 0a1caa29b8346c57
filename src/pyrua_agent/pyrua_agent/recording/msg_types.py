"""
The ROS 2 Jazzy type store of a recording, with the project's ``pyrua_msgs`` types added.

Types come from the ``.msg`` and ``.action`` files themselves (parsed by ``rosbags``), so no
ROS install is needed. An ``.action`` file is split at ``---`` into ``<Name>_Goal``,
``<Name>_Result`` and ``<Name>_Feedback`` as rosidl does. The package directory is found by,
in order: the environment variable ``PYRUA_MSGS_DIR``; ``share/pyrua_msgs`` under a prefix
of ``AMENT_PREFIX_PATH``; ``src/pyrua_msgs`` beside this package in a source checkout
(editable install). When none has any definition, only the standard types are available
and typed primitive goals and results are not written (the JSON records always are).
"""

from __future__ import annotations

from dataclasses import dataclass
import logging
import os
from pathlib import Path
import re
from typing import Any

from rosbags.typesys import get_types_from_msg, get_typestore, Stores

_LOG = logging.getLogger(__name__)
PACKAGE = 'pyrua_msgs'
ACTION_PARTS = ('Goal', 'Result', 'Feedback')
_TYPE_TOKEN = re.compile(r'^(\s*)([A-Z][A-Za-z0-9]*)(\[[^\]]*\])?(\s+.*)$')


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
    """
    Return the ``pyrua_msgs`` directory holding ``msg/`` and ``action/``, or None.

    Looked up in the order the module docstring gives; a directory counts only when it
    holds at least one ``.msg`` or ``.action`` file.
    """
    candidates: list[Path] = []
    if os.environ.get('PYRUA_MSGS_DIR'):
        candidates.append(Path(os.environ['PYRUA_MSGS_DIR']))
    for prefix in filter(None, os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)):
        candidates.append(Path(prefix) / 'share' / PACKAGE)
    candidates.append(Path(__file__).resolve().parents[3] / PACKAGE)
    for path in candidates:
        if _definitions(path, 'msg', '.msg') or _definitions(path, 'action', '.action'):
            return path
    return None


def _definitions(root: Path, kind: str, suffix: str) -> list[Path]:
    folder = root / kind
    return sorted(folder.glob(f'*{suffix}')) if folder.is_dir() else []


def _qualify(text: str, local: set[str]) -> str:
    """Prefix same-package type names with the package, as rosidl resolves them."""
    lines = []
    for line in text.splitlines():
        match = _TYPE_TOKEN.match(line)
        if match and match.group(2) in local:
            indent, name, array, rest = match.groups()
            line = f'{indent}{PACKAGE}/{name}{array or ""}{rest}'
        lines.append(line)
    return '\n'.join(lines) + '\n'


def action_sections(text: str, path: str = '<action>') -> tuple[str, str, str]:
    """
    Split an ``.action`` definition into its goal, result and feedback sections.

    :raises ValueError: when the file does not have exactly two ``---`` separator lines.
    """
    sections: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip() == '---':
            sections.append([])
        else:
            sections[-1].append(line)
    if len(sections) != 3:
        raise ValueError(f'action file {path} has {len(sections) - 1} "---" separators vs 2; '
                         'write goal --- result --- feedback')
    goal, result, feedback = ('\n'.join(s) + '\n' for s in sections)
    return goal, result, feedback


def load_project_types(msgs_dir: Path | None = None) -> ProjectTypes:
    """
    Return the Jazzy type store with the ``pyrua_msgs`` types registered.

    :param msgs_dir: the package directory; found with ``find_msgs_dir()`` when None.
    :raises ValueError: for a malformed ``.action`` file (rosbags' own parse errors pass
        through, naming the file's type).
    """
    store = get_typestore(Stores.ROS2_JAZZY)
    root = msgs_dir if msgs_dir is not None else find_msgs_dir()
    if root is None:
        _LOG.info('no pyrua_msgs definitions found; typed primitive messages are off')
        return ProjectTypes(store=store, source=None, actions=(), messages=())
    msg_files = _definitions(root, 'msg', '.msg')
    action_files = _definitions(root, 'action', '.action')
    local = {p.stem for p in msg_files}
    types: dict[str, Any] = {}
    for path in msg_files:
        types.update(get_types_from_msg(_qualify(path.read_text(), local),
                                        f'{PACKAGE}/msg/{path.stem}'))
    for path in action_files:
        sections = action_sections(path.read_text(), str(path))
        for part, text in zip(ACTION_PARTS, sections, strict=True):
            types.update(get_types_from_msg(_qualify(text, local),
                                            f'{PACKAGE}/action/{path.stem}_{part}'))
    store.register(types)
    return ProjectTypes(store=store, source=root,
                        actions=tuple(p.stem for p in action_files),
                        messages=tuple(sorted(local)))

"""
The ``pyrua_msgs`` interface files as message definitions, for tools without rosidl.

``interface_definitions()`` reads ``msg/*.msg``, ``srv/*.srv`` and ``action/*.action`` and
returns one message text per type, named as rosidl names the generated parts
(``pyrua_msgs/srv/ResetTask_Request``, ``pyrua_msgs/action/MoveTo_Goal``, ...). ``rosbags``
registers them with ``get_types_from_msg(text, name)`` (the recorder and the tests do), so
bags carry the same types a ROS 2 build generates. ``message_fields`` parses one part
(e.g. an action's Goal) into its fields with the same parser, for what derives from the
files (the goal <-> keyword arguments mapping of ``conversions.goal_mapping``).
"""

from __future__ import annotations

from dataclasses import dataclass
import os
from pathlib import Path
import re
from typing import Any

from .fields import MessageFactory

PACKAGE = 'pyrua_msgs'
PARTS = {'msg': ('',), 'srv': ('_Request', '_Response'),
         'action': ('_Goal', '_Result', '_Feedback')}
_FIELD_TYPE = re.compile(r'^(\s*)([A-Z][A-Za-z0-9]*)(\[[^\]]*\])?(\s+.*)$')


def interface_dir() -> Path:
    """
    Return the directory holding ``pyrua_msgs``' msg/, srv/ and action/ folders.

    Looks, in order, at the environment variable ``PYRUA_MSGS_DIR``, ``share/pyrua_msgs`` of
    every prefix on ``AMENT_PREFIX_PATH`` (a colcon install), then the source tree next to
    this package (an editable install). A directory counts when it holds at least one
    interface file.

    :raises FileNotFoundError: naming the places searched.
    """
    candidates = []
    if os.environ.get('PYRUA_MSGS_DIR'):
        candidates.append(Path(os.environ['PYRUA_MSGS_DIR']))
    for prefix in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep):
        if prefix:
            candidates.append(Path(prefix) / 'share' / PACKAGE)
    candidates.append(Path(__file__).resolve().parents[3] / PACKAGE)
    for path in candidates:
        if any((path / kind).glob(f'*.{kind}') for kind in PARTS if (path / kind).is_dir()):
            return path
    raise FileNotFoundError(f'no {PACKAGE} interface files in {[str(c) for c in candidates]}; '
                            'run from the source tree or source a colcon install')


def split_sections(text: str, kind: str, source: str = '<interface>') -> list[str]:
    """
    Split an interface file into its sections at lines that are exactly ``---``.

    :param text: the file's text.
    :param kind: ``'msg'``, ``'srv'`` or ``'action'``.
    :param source: the file, named in the error.
    :raises ValueError: when the number of sections does not match ``kind``.
    """
    sections, current = [], []
    for line in text.splitlines():
        if line.strip() == '---':
            sections.append('\n'.join(current) + '\n')
            current = []
        else:
            current.append(line)
    sections.append('\n'.join(current) + '\n')
    if len(sections) != len(PARTS[kind]):
        raise ValueError(f'{kind} file {source} has {len(sections)} sections vs '
                         f"{len(PARTS[kind])}; separate them with lines '---'")
    return sections


def interface_definitions(root: Path | None = None) -> dict[str, str]:
    """
    Return type name -> message definition text for every interface file.

    :param root: the ``pyrua_msgs`` directory (default: ``interface_dir()``).
    """
    root = interface_dir() if root is None else Path(root)
    local = {path.stem for path in (root / 'msg').glob('*.msg')}
    out: dict[str, str] = {}
    for kind, suffixes in PARTS.items():
        for path in sorted((root / kind).glob(f'*.{kind}')):
            sections = split_sections(path.read_text(), kind, path.name)
            for suffix, text in zip(suffixes, sections, strict=True):
                out[f'{PACKAGE}/{kind}/{path.stem}{suffix}'] = _qualify(text, local)
    return out


def _qualify(text: str, local: set[str]) -> str:
    """Prefix same-package message names with the package, as rosidl resolves them."""
    lines = []
    for line in text.splitlines():
        match = _FIELD_TYPE.match(line)
        if match and match.group(2) in local:
            indent, name, array, rest = match.groups()
            line = f'{indent}{PACKAGE}/{name}{array or ""}{rest}'
        lines.append(line)
    return '\n'.join(lines) + '\n'


@dataclass(frozen=True, slots=True)
class MessageField:
    """
    One field of a message definition.

    :param name: the field name.
    :param kind: its base type (``'string'``, ``'float64'``, ``'bool'``, ``'int32'``, ...) or
        the message type name of a nested message.
    :param size: None for a single value, 0 for an unbounded sequence, N for a fixed array.
    """

    name: str
    kind: str
    size: int | None = None


def message_fields(type_name: str, root: Path | None = None) -> tuple[MessageField, ...]:
    """
    Return the fields of one ``pyrua_msgs`` type, parsed by ``rosbags`` from its file.

    :param type_name: e.g. ``'pyrua_msgs/action/MoveTo_Goal'``.
    :param root: the ``pyrua_msgs`` directory (default: ``interface_dir()``).
    :raises KeyError: for a type no interface file defines, listing those that exist.
    :raises MissingDependency: when ``rosbags`` is not installed.
    """
    try:
        from rosbags.typesys import get_types_from_msg
        from rosbags.typesys.base import Nodetype
    except ImportError as exc:
        from ..errors import MissingDependency

        raise MissingDependency(f'reading {type_name} needs rosbags ({exc}); '
                                "pip install 'rosbags>=0.11,<0.12'") from exc
    definitions = interface_definitions(root)
    if type_name not in definitions:
        from ..naming import unknown_name

        raise KeyError(unknown_name('interface type', type_name, definitions))
    ((_consts, fields),) = get_types_from_msg(definitions[type_name], type_name).values()
    out = []
    for name, (node, detail) in fields:
        size = None
        if node in (Nodetype.ARRAY, Nodetype.SEQUENCE):
            (node, detail), size = detail
        kind = detail[0] if node == Nodetype.BASE else str(detail)
        out.append(MessageField(name=name, kind=kind, size=size))
    return tuple(out)


def register_interfaces(typestore, root: Path | None = None) -> tuple[str, ...]:
    """
    Register every ``pyrua_msgs`` type with a ``rosbags`` typestore.

    :param typestore: from ``rosbags.typesys.get_typestore(Stores.ROS2_JAZZY)``.
    :param root: the ``pyrua_msgs`` directory (default: ``interface_dir()``).
    :returns: the registered type names.
    """
    from rosbags.typesys import get_types_from_msg

    definitions = interface_definitions(root)
    types = {}
    for name, text in definitions.items():
        # rosbags files a service part under 'pkg/srv/msg/X'; keep rosidl's 'pkg/srv/X'.
        (definition,) = get_types_from_msg(text, name).values()
        types[name] = definition
    typestore.register(types)
    return tuple(definitions)


def rosbags_typestore(root: Path | None = None):
    """
    Return a ``rosbags`` Jazzy typestore with every ``pyrua_msgs`` type registered.

    :param root: the ``pyrua_msgs`` directory (default: ``interface_dir()``).
    """
    from rosbags.typesys import get_typestore, Stores

    store = get_typestore(Stores.ROS2_JAZZY)
    register_interfaces(store, root)
    return store


def rosbags_factory(typestore) -> MessageFactory:
    """Return ``make(type_name, **fields)`` building messages of ``typestore``'s types."""
    def make(type_name: str, **fields: Any) -> Any:
        return typestore.types[type_name](**fields)
    return make

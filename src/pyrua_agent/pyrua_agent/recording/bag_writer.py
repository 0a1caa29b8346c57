"""
An incremental, crash-safe rosbag2 (MCAP) writer on top of ``rosbags``.

``rosbags`` keeps up to 1 MiB of messages in memory per MCAP chunk and writes the summary
and ``metadata.yaml`` only on close, so a process killed mid-episode would lose the chunk
in progress. ``BagWriter.write_group`` therefore closes the chunk and flushes the file after
each group of messages: what was written survives SIGKILL, and a group (an image with its
camera info, TF and metadata) is on disk entirely or not at all. A bag left without
``metadata.yaml`` is made whole again by ``recording.bag_repair.repair_bag``.

This reaches into the ``rosbags`` MCAP storage (``storage.close_chunk()``, ``storage.bio``),
checked when the writer opens; ``setup.py`` pins the rosbags minor version it was checked
against, and the kill -9 test proves it.
"""

from __future__ import annotations

from collections.abc import Sequence
import logging
import os
from pathlib import Path
import time
from typing import Any

from rosbags.rosbag2 import StoragePlugin, Writer

from .msg_types import ProjectTypes

_LOG = logging.getLogger(__name__)
BAG_VERSION = 9
# (topic, msgtype, message)
Entry = tuple[str, str, Any]


class BagWriter:
    """
    Write messages to a new rosbag2 directory, flushed to disk after every group.

    :param path: the bag directory to create; it must not exist yet.
    :param types: the type store (standard Jazzy types plus ``pyrua_msgs``).
    :raises FileExistsError: when ``path`` exists (a bag is never overwritten).
    :raises RuntimeError: when the installed rosbags lacks the MCAP storage internals.
    """

    def __init__(self, path: str | os.PathLike[str], types: ProjectTypes) -> None:
        self.path = Path(path)
        if self.path.exists():
            raise FileExistsError(f'bag directory {self.path} exists vs a new one required; '
                                  'pick another directory or remove it')
        self.types = types
        self._writer = Writer(self.path, version=BAG_VERSION, storage_plugin=StoragePlugin.MCAP)
        self._writer.open()
        storage = self._writer.storage
        if not (hasattr(storage, 'close_chunk') and hasattr(storage, 'bio')
                and hasattr(storage, 'chunk')):
            self._writer.close()
            raise RuntimeError('rosbags MCAP storage has no close_chunk/bio/chunk vs the '
                               'rosbags 0.11 internals crash-safe recording needs; install '
                               "'rosbags>=0.11,<0.12'")
        self._connections: dict[str, Any] = {}
        self._last_ns = 0
        self.message_count = 0
        self.bytes_written = 0

    def __repr__(self) -> str:
        state = 'open' if self._writer is not None else 'closed'
        return f'BagWriter({str(self.path)!r}, {self.message_count} messages, {state})'

    @property
    def closed(self) -> bool:
        """Return True once ``close`` ran."""
        return self._writer is None

    def _connection(self, topic: str, msgtype: str) -> Any:
        connection = self._connections.get(topic)
        if connection is None:
            connection = self._writer.add_connection(topic, msgtype, typestore=self.types.store)
            self._connections[topic] = connection
        elif connection.msgtype != msgtype:
            raise ValueError(f'topic {topic} has type {msgtype} vs {connection.msgtype} '
                             'recorded before; one topic carries one type')
        return connection

    def next_log_time_ns(self) -> int:
        """Return a wall-clock log time in ns, strictly after the previous one."""
        self._last_ns = max(time.time_ns(), self._last_ns + 1)
        return self._last_ns

    def write_group(self, entries: Sequence[Entry]) -> int:
        """
        Write messages with consecutive log times, then flush them to disk together.

        :param entries: ``(topic, msgtype, message)`` in order.
        :returns: the log time of the first message, ns.
        :raises RuntimeError: after ``close``.
        :raises Exception: from serialization (then nothing of the group is written).
        """
        if self._writer is None:
            raise RuntimeError(f'bag {self.path} is closed vs open for writing; record into '
                               'a new bag')
        # Serialized first: a message that cannot be serialized writes nothing of its group.
        serialized = [(self._connection(topic, msgtype),
                       self.types.store.serialize_cdr(message, msgtype))
                      for topic, msgtype, message in entries]
        first = 0
        for connection, data in serialized:
            log_time = self.next_log_time_ns()
            first = first or log_time
            self._writer.write(connection, log_time, data)
            self.message_count += 1
            self.bytes_written += len(data)
        self._flush()
        return first

    def _flush(self) -> None:
        storage = self._writer.storage
        if storage.chunk.bio.tell():
            storage.close_chunk()
        storage.bio.flush()

    def close(self) -> None:
        """Write the MCAP summary and ``metadata.yaml``; closing twice does nothing."""
        if self._writer is None:
            return
        writer, self._writer = self._writer, None
        writer.close()
        _LOG.info('bag %s closed with %d messages', self.path, self.message_count)

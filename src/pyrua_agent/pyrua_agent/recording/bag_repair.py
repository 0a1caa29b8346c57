"""
Recover a bag whose writer was killed: keep every complete message, rewrite the bag whole.

A killed ``BagWriter`` leaves ``<bag>/<bag>.mcap`` without its summary and footer, and no
``metadata.yaml``. ``repair_bag`` scans the MCAP records from the start, stops at the first
incomplete one, and writes the recovered schemas, channels and messages into a complete
rosbag2 directory that replaces the broken one. Readers call it when ``metadata.yaml`` is
missing; the repaired bag's ``metadata.yaml`` says so under ``custom_data``.
"""

from __future__ import annotations

from dataclasses import dataclass
import io
import logging
import os
from pathlib import Path
import shutil
import struct
import tempfile

from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import get_types_from_msg, get_typestore, Stores

_LOG = logging.getLogger(__name__)
MAGIC = b'\x89MCAP0\r\n'
_SCHEMA, _CHANNEL, _MESSAGE, _CHUNK, _DATA_END, _FOOTER = 0x03, 0x04, 0x05, 0x06, 0x0F, 0x02


@dataclass(frozen=True, slots=True)
class ScanResult:
    """What a tolerant scan of an MCAP file found: types by schema, topics, messages."""

    schemas: dict[int, tuple[str, str]]
    """schema id -> (msgtype, message definition text)."""
    channels: dict[int, tuple[str, int]]
    """channel id -> (topic, schema id)."""
    messages: list[tuple[int, int, bytes]]
    """(channel id, log time ns, CDR data) in file order."""
    complete: bool
    """True when the scan reached the data end record (the file was closed)."""

    def __repr__(self) -> str:
        state = 'complete' if self.complete else 'truncated'
        return (f'ScanResult({len(self.channels)} channels, {len(self.messages)} messages, '
                f'{state})')


def _string(buf: io.BytesIO) -> str:
    (size,) = struct.unpack('<I', buf.read(4))
    return buf.read(size).decode()


def _records(data: bytes):
    """Yield ``(opcode, body)`` for each complete record of ``data``; stop at a cut one."""
    offset = 0
    while offset + 9 <= len(data):
        opcode = data[offset]
        (size,) = struct.unpack_from('<Q', data, offset + 1)
        end = offset + 9 + size
        if end > len(data):
            return
        yield opcode, data[offset + 9:end]
        offset = end


def scan_mcap(path: str | os.PathLike[str]) -> ScanResult:
    """
    Read the complete records of an MCAP file, closed or cut short.

    :raises ValueError: when the file is not MCAP, or a chunk is compressed (the recorder
        writes uncompressed chunks).
    """
    data = Path(path).read_bytes()
    if not data.startswith(MAGIC):
        raise ValueError(f'{path} starts with {data[:8]!r} vs the MCAP magic; not an MCAP file')
    result = ScanResult({}, {}, [], complete=False)
    for opcode, body in _records(data[len(MAGIC):]):
        if opcode in (_DATA_END, _FOOTER):
            return ScanResult(result.schemas, result.channels, result.messages, complete=True)
        if opcode == _CHUNK:
            _chunk(body, result, path)
        else:
            _record(opcode, body, result)
    return result


def _chunk(body: bytes, result: ScanResult, path: object) -> None:
    buf = io.BytesIO(body)
    buf.read(28)  # start time, end time, uncompressed size, CRC
    compression = _string(buf)
    (size,) = struct.unpack('<Q', buf.read(8))
    if compression:
        raise ValueError(f'{path} has a {compression!r} chunk vs uncompressed ones; it was not '
                         'written by the pyrua recorder')
    for opcode, record in _records(buf.read(size)):
        _record(opcode, record, result)


def _record(opcode: int, body: bytes, result: ScanResult) -> None:
    buf = io.BytesIO(body)
    if opcode == _SCHEMA:
        (schema_id,) = struct.unpack('<H', buf.read(2))
        name = _string(buf)
        _string(buf)  # encoding: ros2msg
        (size,) = struct.unpack('<I', buf.read(4))
        result.schemas[schema_id] = (name, buf.read(size).decode())
    elif opcode == _CHANNEL:
        channel_id, schema_id = struct.unpack('<HH', buf.read(4))
        result.channels[channel_id] = (_string(buf), schema_id)
    elif opcode == _MESSAGE:
        channel_id, _sequence, log_time, _publish = struct.unpack('<HIQQ', buf.read(22))
        result.messages.append((channel_id, log_time, buf.read()))


def find_mcap(bag: Path) -> Path:
    """
    Return the one ``.mcap`` file of bag directory ``bag``.

    :raises FileNotFoundError: when there is none, or more than one.
    """
    files = sorted(bag.glob('*.mcap'))
    if len(files) != 1:
        raise FileNotFoundError(f'bag {bag} holds {len(files)} .mcap files vs 1; pass a bag '
                                'directory written by the pyrua recorder')
    return files[0]


def repair_bag(bag: str | os.PathLike[str]) -> int:
    """
    Rewrite a bag left without ``metadata.yaml`` from the messages that reached the disk.

    Messages on a channel whose schema was lost are dropped (with a warning); the rest
    keep their topics, types and log times.

    :param bag: the bag directory.
    :returns: the number of messages recovered.
    :raises FileNotFoundError: when ``bag`` holds no single ``.mcap`` file.
    """
    bag = Path(bag)
    scan = scan_mcap(find_mcap(bag))
    store = get_typestore(Stores.ROS2_JAZZY)
    staging = Path(tempfile.mkdtemp(prefix=f'.{bag.name}-repair-', dir=bag.parent))
    kept = 0
    try:
        writer = Writer(staging / bag.name, version=9, storage_plugin=StoragePlugin.MCAP)
        writer.set_custom_data('pyrua.repaired', f'{len(scan.messages)} messages recovered '
                               'from a bag whose writer stopped before closing it')
        writer.open()
        connections = {}
        for channel_id, (topic, schema_id) in sorted(scan.channels.items()):
            if schema_id not in scan.schemas:
                continue
            msgtype, msgdef = scan.schemas[schema_id]
            if msgtype not in store.types:
                store.register(get_types_from_msg(msgdef, msgtype))
            connections[channel_id] = writer.add_connection(
                topic, msgtype, msgdef=msgdef, rihs01=store.hash_rihs01(msgtype))
        for channel_id, log_time, data in scan.messages:
            if channel_id in connections:
                writer.write(connections[channel_id], log_time, data)
                kept += 1
        writer.close()
        lost = len(scan.messages) - kept
        if lost:
            _LOG.warning('bag %s: %d messages dropped, their channel or schema was lost', bag,
                         lost)
        bag.rename(staging / 'broken')
        (staging / bag.name).rename(bag)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    _LOG.warning('bag %s had no metadata.yaml: repaired, %d messages recovered', bag, kept)
    return kept

"""
The JSONL transcript of an episode: what the model was told and answered, cell by cell.

One JSON object per line, flushed per line, so a killed run keeps every finished record.
Record kinds (the ``kind`` key): ``header`` (task, seed, layout, planner, resolved config,
instruction, task card images), ``message`` (one chat message exchanged with the model, in
history order), ``llm_call`` (accounting of one model call), ``cell`` (code, output, error,
stop reason, image files, primitive calls) and ``end`` (end reason, success, score, totals).
Images are PNG or JPEG files under ``images/`` beside the transcript, referenced by their
relative path; a message never holds base64 data.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
import hashlib
import json
import logging
import os
from pathlib import Path
import threading
from typing import Any, IO

import cv2
import numpy as np

from .budget import summarised
from .convert import plain

_LOG = logging.getLogger(__name__)
TRANSCRIPT_NAME = 'transcript.jsonl'
IMAGES_DIR = 'images'
KINDS = ('header', 'message', 'llm_call', 'cell', 'end')
_DATA_URL_TYPES = {'image/png': 'png', 'image/jpeg': 'jpg', 'image/jpg': 'jpg',
                   'image/webp': 'webp'}


class TranscriptWriter:
    """
    Append records to ``transcript.jsonl`` and images to ``images/`` in one run directory.

    :param run_dir: the episode's directory (created if needed).
    :param budget_bytes: bytes of JSON lines this transcript may take whole; past it each
        record is written with its long texts cut and long lists summarised, marked
        ``"truncated": true`` (None: no limit).
    """

    def __init__(self, run_dir: str | os.PathLike[str], *,
                 budget_bytes: int | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.images_dir = self.run_dir / IMAGES_DIR
        self.images_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.run_dir / TRANSCRIPT_NAME
        self._file: IO[str] | None = self.path.open('x', encoding='utf-8')
        self._lock = threading.Lock()
        self._saved: dict[str, str] = {}
        self.records = 0
        self.budget_bytes = budget_bytes
        self.bytes_written = 0
        self.truncated = False

    def __repr__(self) -> str:
        return f'TranscriptWriter({str(self.path)!r}, {self.records} records)'

    def write(self, kind: str, record: Mapping[str, Any]) -> None:
        """
        Append one record of ``kind`` and flush it to disk.

        :raises ValueError: for an unknown kind.
        :raises RuntimeError: after ``close``.
        """
        if kind not in KINDS:
            raise ValueError(f'transcript record kind {kind!r} vs {KINDS}; use one of them')
        values = plain(record)
        line = json.dumps({'kind': kind, **values}, ensure_ascii=False, allow_nan=False)
        with self._lock:
            if self._file is None:
                raise RuntimeError(f'transcript {self.path} is closed vs open; write before '
                                   'close()')
            size = len(line.encode('utf-8', 'surrogatepass'))
            if self.budget_bytes is not None and (
                    self.truncated or self.bytes_written + size > self.budget_bytes):
                self.truncated = True
                line = json.dumps({'kind': kind, **summarised(values), 'truncated': True},
                                  ensure_ascii=False, allow_nan=False)
                size = len(line.encode('utf-8', 'surrogatepass'))
            self._file.write(line + '\n')
            self._file.flush()
            self.records += 1
            self.bytes_written += size + 1

    def save_rgb(self, name: str, rgb: np.ndarray) -> str:
        """
        Save an H x W x 3 uint8 RGB image as ``images/<name>.png``.

        :returns: the path relative to the run directory.
        """
        relative = f'{IMAGES_DIR}/{name}.png'
        bgr = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2BGR)
        if not cv2.imwrite(str(self.run_dir / relative), bgr):
            raise OSError(f'could not write {self.run_dir / relative}; check the disk')
        return relative

    def save_data_url(self, name: str, url: str) -> str:
        """
        Save a ``data:image/...;base64,`` URL's image once (by content) under ``images/``.

        :returns: the path relative to the run directory.
        :raises ValueError: for a URL that is not a base64 image data URL.
        """
        head, _, payload = url.partition(',')
        mime = head.removeprefix('data:').removesuffix(';base64')
        if not head.startswith('data:') or not head.endswith(';base64') or (
                mime not in _DATA_URL_TYPES):
            raise ValueError(f'image URL {url[:40]!r}... vs a base64 data URL of '
                             f'{sorted(_DATA_URL_TYPES)}; only inline images are saved')
        digest = hashlib.sha1(payload.encode('ascii')).hexdigest()
        with self._lock:
            if digest in self._saved:
                return self._saved[digest]
            relative = f'{IMAGES_DIR}/{name}.{_DATA_URL_TYPES[mime]}'
            (self.run_dir / relative).write_bytes(base64.b64decode(payload))
            self._saved[digest] = relative
        return relative

    def message_record(self, message: Mapping[str, Any], name: str) -> dict[str, Any]:
        """
        Return a chat message with each inline image replaced by its saved file.

        Image parts become ``{'type': 'image_file', 'path': ..., 'detail': ...}``.

        :param name: the file name stem for the message's images (``_<k>`` is appended).
        """
        record = dict(message)
        content = message.get('content')
        if isinstance(content, list):
            parts = []
            for k, part in enumerate(content):
                if isinstance(part, Mapping) and part.get('type') == 'image_url':
                    image = part.get('image_url') or {}
                    parts.append({'type': 'image_file',
                                  'path': self.save_data_url(f'{name}_{k}', image.get('url', '')),
                                  'detail': image.get('detail', 'auto')})
                else:
                    parts.append(dict(part))
            record['content'] = parts
        return record

    def close(self) -> None:
        """Close the file; closing twice does nothing."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


@dataclass(frozen=True, slots=True)
class CellRecord:
    """One cell as the transcript keeps it; ``images`` hold ``file`` paths, not pixels."""

    index: int
    code: str
    output: str
    error: str | None
    stopped_reason: str | None
    duration_s: float
    label: str = ''
    images: tuple[dict[str, Any], ...] = ()
    calls: tuple[dict[str, Any], ...] = ()

    def __repr__(self) -> str:
        state = self.stopped_reason or (f'error={self.error}' if self.error else 'ok')
        return (f'CellRecord(cell {self.index}, {state}, {len(self.code)} chars of code, '
                f'{len(self.images)} images)')


@dataclass(frozen=True, slots=True)
class Transcript:
    """
    A transcript read back: the header, chat messages, LLM calls, cells and the end record.

    ``end`` is None when the run stopped before the episode ended; ``truncated`` is True
    when the last line was cut off (the writer was killed mid-line).
    """

    path: Path
    header: dict[str, Any]
    messages: tuple[dict[str, Any], ...]
    llm_calls: tuple[dict[str, Any], ...]
    cells: tuple[CellRecord, ...]
    end: dict[str, Any] | None
    truncated: bool = False
    records: tuple[dict[str, Any], ...] = field(default=(), repr=False)

    def __repr__(self) -> str:
        end = self.end['end_reason'] if self.end else 'no end record'
        return (f'Transcript({self.header.get("task", "?")!r}, {len(self.cells)} cells, '
                f'{len(self.llm_calls)} LLM calls, {len(self.messages)} messages, {end})')


def read_transcript(path: str | os.PathLike[str]) -> Transcript:
    """
    Read a transcript file (or the ``transcript.jsonl`` of a run directory).

    :raises FileNotFoundError: when there is no transcript.
    :raises ValueError: for a malformed line other than a cut-off last one, or an
        unknown record kind.
    """
    path = Path(path)
    if path.is_dir():
        path = path / TRANSCRIPT_NAME
    text = path.read_text(encoding='utf-8')
    lines = text.split('\n')
    truncated = bool(lines[-1])
    if truncated:
        _LOG.warning('transcript %s ends in a cut-off line; it is ignored', path)
    records = []
    for number, line in enumerate(lines[:-1], start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f'{path}:{number} is not JSON ({exc}); the transcript is '
                             'damaged') from exc
        if record.get('kind') not in KINDS:
            raise ValueError(f'{path}:{number} has kind {record.get("kind")!r} vs {KINDS}')
        records.append(record)
    header = next((r for r in records if r['kind'] == 'header'), {})
    cells = tuple(_cell(r) for r in records if r['kind'] == 'cell')
    return Transcript(
        path=path, header=header,
        messages=tuple(r for r in records if r['kind'] == 'message'),
        llm_calls=tuple(r for r in records if r['kind'] == 'llm_call'),
        cells=cells, end=next((r for r in records if r['kind'] == 'end'), None),
        truncated=truncated, records=tuple(records))


def _cell(record: Mapping[str, Any]) -> CellRecord:
    return CellRecord(index=record['index'], code=record['code'], output=record['output'],
                      error=record.get('error'), stopped_reason=record.get('stopped_reason'),
                      duration_s=record.get('duration_s', 0.0), label=record.get('label', ''),
                      images=tuple(record.get('images', ())),
                      calls=tuple(record.get('calls', ())))


def read_cells(path: str | os.PathLike[str]) -> list[str]:
    """Return the code of each recorded cell, in order (what the replay planner runs)."""
    return [cell.code for cell in read_transcript(path).cells]


def fingerprint(message: Mapping[str, Any]) -> str:
    """Return a digest of one chat message (to store each message of a history once)."""
    return hashlib.sha1(json.dumps(message, sort_keys=True, default=repr).encode()).hexdigest()


def history_suffix(previous: Sequence[str], messages: Sequence[Mapping[str, Any]]
                   ) -> tuple[int, list[str]]:
    """
    Return where ``messages`` stop repeating the previous request, and their fingerprints.

    :param previous: fingerprints of the messages already stored.
    :param messages: the chat history of the new request.
    :returns: ``(position, fingerprints)``: messages from ``position`` on are new.
    """
    prints = [fingerprint(m) for m in messages]
    position = 0
    while (position < min(len(prints), len(previous))
           and prints[position] == previous[position]):
        position += 1
    return position, prints

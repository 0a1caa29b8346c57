"""
The result store of one evaluation run: one JSON file per finished episode.

Layout of the output folder::

    DIR/spec.json               the resolved spec of the first run (settings are checked)
    DIR/episodes/<id>.json      one record per episode (written atomically)
    DIR/runs/<id>/<stamp>/      the episode's recording (bag + transcript), one per attempt

A record is written to a temporary file, flushed to disk and renamed over its final name,
so a run killed at any instant (kill -9 included) leaves whole records or none: a rerun skips
every episode with a record and runs the rest, and nothing is counted twice. An
``infra_error`` record with ``attempt == 1`` is not final: the episode runs once more.
"""

from __future__ import annotations

from collections.abc import Iterable
import json
import os
from pathlib import Path
from typing import Any

from .jobs import EpisodeJob
from .spec import EvalSpec

MAX_ATTEMPTS = 2
RECORD_DIR = 'episodes'
RUNS_DIR = 'runs'
SPEC_FILE = 'spec.json'


def is_final(record: dict[str, Any]) -> bool:
    """Return whether ``record`` ends its episode (not an infra_error with a retry left)."""
    return record.get('end_reason') != 'infra_error' or record.get('attempt', 1) >= MAX_ATTEMPTS


def read_records(root: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """
    Return the records under ``root/episodes``, sorted by episode id.

    :raises FileNotFoundError: when ``root`` holds no ``episodes/`` folder.
    :raises ValueError: for a file that is not a JSON record, naming it.
    """
    folder = Path(root) / RECORD_DIR
    if not folder.is_dir():
        raise FileNotFoundError(f'{root} has no {RECORD_DIR}/ folder: is it the --out folder '
                                'of a `pyrua eval` run?')
    records = []
    for path in sorted(folder.glob('*.json')):
        try:
            record = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f'{path} is not a JSON record ({exc}); delete it and rerun '
                             '`pyrua eval` to run that episode again') from None
        if not isinstance(record, dict) or 'episode_id' not in record:
            raise ValueError(f'{path} has no episode_id: not a `pyrua eval` record')
        records.append(record)
    return records


class ResultStore:
    """
    Records of one output folder: what is done, what is left, atomic writes.

    :param root: the output folder (created when missing).
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.records_dir = self.root / RECORD_DIR
        self.runs_dir = self.root / RUNS_DIR
        self.records_dir.mkdir(parents=True, exist_ok=True)
        self.runs_dir.mkdir(exist_ok=True)
        self._records = {r['episode_id']: r for r in read_records(self.root)}

    def __repr__(self) -> str:
        return f'ResultStore({self.root}: {len(self._records)} records)'

    def bind(self, spec: EvalSpec) -> None:
        """
        Keep the spec with the records; refuse a spec whose settings differ.

        Tasks, seeds, layouts and labels may change between runs (episode ids are stable);
        interfaces, budgets, perception, sandbox and guard may not, since records made under
        other settings would be mixed.

        :raises ValueError: naming the first setting that differs.
        """
        path = self.root / SPEC_FILE
        settings = spec.settings()
        if path.is_file():
            stored = json.loads(path.read_text())
            old = {k: v for k, v in stored.items() if k in settings}
            for key in sorted(settings):
                if old.get(key) != settings[key]:
                    raise ValueError(
                        f'{self.root} holds records made with {key}={old.get(key)!r} vs '
                        f'{settings[key]!r} in this spec; use another --out folder or the '
                        'same settings')
            return
        self._write_json(path, spec.to_dict())

    def record(self, episode_id: str) -> dict[str, Any] | None:
        """Return the stored record of ``episode_id``, or None."""
        return self._records.get(episode_id)

    def pending(self, jobs: Iterable[EpisodeJob]) -> list[EpisodeJob]:
        """Return the jobs without a final record, each at its next attempt number."""
        left = []
        for job in jobs:
            record = self._records.get(job.episode_id)
            if record is None:
                left.append(job)
            elif not is_final(record):
                left.append(job.retry())
        return left

    def finished(self, jobs: Iterable[EpisodeJob]) -> list[dict[str, Any]]:
        """Return the final records of ``jobs`` (those a rerun skips)."""
        found = (self._records.get(job.episode_id) for job in jobs)
        return [r for r in found if r is not None and is_final(r)]

    def write(self, record: dict[str, Any]) -> Path:
        """Write ``record`` atomically as ``episodes/<episode_id>.json``; return the path."""
        path = self.records_dir / f"{record['episode_id']}.json"
        self._write_json(path, record)
        self._records[record['episode_id']] = record
        return path

    @staticmethod
    def _write_json(path: Path, data: dict[str, Any]) -> None:
        temporary = path.with_name(f'.{path.name}.{os.getpid()}.tmp')
        with open(temporary, 'w') as stream:
            json.dump(data, stream, indent=1)
            stream.write('\n')
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)

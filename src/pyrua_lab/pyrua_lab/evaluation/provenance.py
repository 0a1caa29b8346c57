"""
Where and on what an episode ran: the code's commit, the model's checksum, the machine's load.

A long run resumes over several sittings, perhaps on several commits; each record carries its
own provenance so a table built from them can say what it mixes. The load average is the
measurement's context: a model call under load 10 takes 5x longer than idle.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from functools import lru_cache
import hashlib
import os
from pathlib import Path
import platform
import subprocess
from typing import Any

_REPO = Path(__file__).resolve().parents[3]  # src/pyrua_lab/pyrua_lab/evaluation -> repo root


def load_average() -> list[float]:
    """Return the 1, 5 and 15 minute load averages, rounded to 0.01 (empty where unknown)."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return []


@lru_cache(maxsize=None)
def source_commit(repo: Path = _REPO) -> dict[str, Any]:
    """
    Return the git commit the code runs from, and whether tracked files differ from it.

    :returns: ``{'commit': sha, 'dirty': bool}``; ``{'commit': None}`` outside a git checkout
        (an installed wheel) or without git.
    """
    def git(*args: str) -> str:
        return subprocess.run(['git', '-C', str(repo), *args], capture_output=True, text=True,
                              check=True, timeout=30).stdout.strip()

    try:
        commit = git('rev-parse', 'HEAD')
        dirty = bool(git('status', '--porcelain', '--untracked-files=no', '--', 'src'))
    except (OSError, subprocess.SubprocessError):
        return {'commit': None}
    return {'commit': commit, 'dirty': dirty}


def model_checksum(model: str | None) -> str | None:
    """Return the sha256 of a local model's weights (the catalogue's, checked when prepared)."""
    if not model:
        return None
    try:
        from pyrua_local.models import is_local, resolve_model
    except ImportError:
        return None
    if not is_local(model):
        return None
    try:
        found = resolve_model(model)
    except ValueError:
        return None
    return found.sha256 or (_file_sha256(found.file) if found.file else None)


@lru_cache(maxsize=None)
def _file_sha256(path: str) -> str | None:
    digest = hashlib.sha256()
    try:
        with open(path, 'rb') as f:
            for chunk in iter(lambda: f.read(8 << 20), b''):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def provenance(model: str | None, load_at_start: list[float]) -> dict[str, Any]:
    """
    Return the ``provenance`` of one episode's record.

    :param model: the interface's model (``local:<name>`` gets its weights' checksum).
    :param load_at_start: ``load_average()`` when the episode began.
    """
    return {**source_commit(), 'model_sha256': model_checksum(model),
            'machine': f'{os.cpu_count()} CPUs, {platform.platform(terse=True)}',
            'finished_at': datetime.now(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'),
            'load_at_start': load_at_start, 'load_at_end': load_average()}


def provenance_line(records: Sequence[Mapping[str, Any]]) -> str:
    """
    Return one line saying what the records ran on: dates, commits, weights, machines, load.

    Counts are episodes; ``+`` marks a commit whose tracked sources had changes. Records
    written before provenance was kept are counted as such. ``''`` for no records.
    """
    if not records:
        return ''
    known = [r['provenance'] for r in records if isinstance(r.get('provenance'), Mapping)]
    parts = []
    if known:
        dates = sorted(p['finished_at'] for p in known if p.get('finished_at'))
        if dates:
            parts.append(f'finished {dates[0]} to {dates[-1]}')
        commits = Counter(
            (p['commit'][:7] + ('+' if p.get('dirty') else '')) if p.get('commit') else 'unknown'
            for p in known)
        parts.append('commits ' + ', '.join(f'{c} ({n})' for c, n in sorted(commits.items())))
        weights = Counter(p['model_sha256'][:12] for p in known if p.get('model_sha256'))
        if weights:
            parts.append('weights sha256 ' + ', '.join(
                f'{w}... ({n})' for w, n in sorted(weights.items())))
        parts.append('on ' + '; '.join(sorted({str(p.get('machine')) for p in known})))
        for when in ('start', 'end'):
            loads = [p[f'load_at_{when}'][0] for p in known if p.get(f'load_at_{when}')]
            if loads:
                parts.append(f'1-min load at episode {when} {min(loads):.2f}-{max(loads):.2f}')
    if len(known) < len(records):
        parts.append(f'{len(records) - len(known)} episodes recorded without provenance')
    return 'Ran: ' + '; '.join(parts) + '.'

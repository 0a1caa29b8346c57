"""
Run folders: one fresh, uniquely named directory per recorded episode.

``runs/<YYYYmmdd-HHMMSS>_<task>_s<seed>_l<layout>/`` by default; parallel episodes of one task
started in the same second each claim their own folder (``_2``, ``_3``, ...).
"""

from __future__ import annotations

from datetime import datetime
import itertools
import os
from pathlib import Path
import re

DEFAULT_ROOT = 'runs'


def default_run_dir(task: str, seed: int, layout: int, root: str | os.PathLike[str] = DEFAULT_ROOT,
                    now: datetime | None = None) -> Path:
    """
    Create and return a fresh, empty ``<root>/<YYYYmmdd-HHMMSS>_<task>_s<seed>_l<layout>``.

    The folder is claimed with an exclusive ``mkdir``, so episodes of the same task started in
    the same second (parallel evaluation or training) each get their own (``_2``, ``_3``, ...).
    """
    when = (now or datetime.now()).strftime('%Y%m%d-%H%M%S')
    safe = re.sub(r'[^A-Za-z0-9_.-]+', '-', task) or 'task'
    base = Path(root) / f'{when}_{safe}_s{seed}_l{layout}'
    base.parent.mkdir(parents=True, exist_ok=True)
    path = base
    for n in itertools.count(2):
        try:
            path.mkdir()
        except FileExistsError:
            path = base.with_name(f'{base.name}_{n}')
            continue
        return path
    raise AssertionError('unreachable')

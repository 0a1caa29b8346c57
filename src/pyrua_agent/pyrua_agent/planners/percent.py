"""
Read Jupyter-percent files (``# %%`` cell markers) into a list of code cells.

This is the format of the reference programs and of user scripts for the script planner:
each ``# %%`` line starts a new cell; text after the marker on that line is the cell's title;
``# %% [markdown]`` cells are notes for people and are skipped. Code before the first marker
is a cell of its own; cells with only comments are dropped. A marker
``# %% [include] other.py`` is replaced by the cells of that file (relative to the
including one), so programs can share a file of helper cells instead of copying it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
import re

_MARKER = re.compile(r'^# ?%%(?P<rest>.*)$')


_INCLUDE = '[include]'


@dataclass(frozen=True, slots=True)
class ScriptCell:
    """One code cell of a percent file: its title, its code and where it starts (1-based)."""

    title: str
    code: str
    line: int

    def __repr__(self) -> str:
        lines = self.code.count('\n') + 1
        return f'ScriptCell({self.title!r}, {lines} lines from line {self.line})'


def parse_percent(text: str) -> list[ScriptCell]:
    """
    Split percent-format source into code cells.

    :param text: the file's text.
    :returns: the non-empty code cells in order (markdown cells dropped; an include
        marker becomes a cell whose ``title`` is ``'[include] <path>'`` and code is empty).
    """
    cells: list[ScriptCell] = []
    title, start, body, markdown = '', 1, [], False

    def flush() -> None:
        code = '\n'.join(body).strip('\n')
        if title.startswith(_INCLUDE):
            cells.append(ScriptCell(title=title, code='', line=start - 1))
            if code.strip():
                cells.append(ScriptCell(title='', code=code, line=start))
        elif _has_code(code) and not markdown:
            cells.append(ScriptCell(title=title, code=code, line=start))

    for number, line in enumerate(text.splitlines(), start=1):
        match = _MARKER.match(line)
        if match is None:
            body.append(line)
            continue
        flush()
        rest = match.group('rest').strip()
        markdown = rest.startswith('[markdown]')
        title, start, body = rest, number + 1, []
    flush()
    return cells


def _has_code(code: str) -> bool:
    """Return True when ``code`` has a line that is neither blank nor a comment."""
    return any(line.strip() and not line.lstrip().startswith('#') for line in code.splitlines())


def read_percent_file(path: str | Path, _including: tuple[Path, ...] = ()) -> list[ScriptCell]:
    """
    Read a percent file into code cells, expanding ``# %% [include] file`` markers.

    :param path: path of a ``.py`` file with ``# %%`` markers.
    :returns: its code cells.
    :raises FileNotFoundError: naming the path when it (or an included file) does not exist.
    :raises ValueError: when the file holds no code cell, or includes itself.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f'script {str(path)!r} does not exist; pass a .py file with # %% cells')
    if path.resolve() in _including:
        chain = ' -> '.join(p.name for p in (*_including, path.resolve()))
        raise ValueError(f'script includes itself ({chain}); remove the cycle')
    cells: list[ScriptCell] = []
    for cell in parse_percent(path.read_text(encoding='utf-8')):
        if cell.title.startswith(_INCLUDE):
            target = path.parent / cell.title[len(_INCLUDE):].strip()
            cells.extend(read_percent_file(target, (*_including, path.resolve())))
        else:
            cells.append(cell)
    if not cells:
        raise ValueError(f'script {str(path)!r} has no code cells; add code after a # %% line')
    return cells

"""
A small table type and its three renderings: Markdown, CSV and HTML.

Cells hold raw values (CSV writes them as they are); ``formats`` says how Markdown and HTML
show each column (``'pct'``, ``'int'``, ``'usd'``, ``'ratio'``, ``'float'`` or ``''``).
``None`` is shown as ``n/a``.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
import html
import io
from typing import Any


@dataclass(frozen=True, slots=True)
class Table:
    """
    One result table.

    :param name: file stem (``sr_by_task`` -> ``sr_by_task.csv``).
    :param title: the heading.
    :param columns: column headings.
    :param rows: raw cell values, one list per row.
    :param formats: one format name per column.
    :param note: a line under the table (what it counts, caveats), or ''.
    :param row_formats: one format per row for the columns whose format is ``'row'``.
    """

    name: str
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    formats: tuple[str, ...]
    note: str = ''
    row_formats: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if len(self.formats) != len(self.columns):
            raise ValueError(f'table {self.name}: {len(self.formats)} formats vs '
                             f'{len(self.columns)} columns; give one per column')
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f'table {self.name}: a row of {len(row)} cells vs '
                                 f'{len(self.columns)} columns: {row!r}')
        if 'row' in self.formats and len(self.row_formats) != len(self.rows):
            raise ValueError(f'table {self.name}: {len(self.row_formats)} row formats vs '
                             f'{len(self.rows)} rows; give one per row')

    def __repr__(self) -> str:
        return f'Table({self.name}: {len(self.rows)} rows x {len(self.columns)} columns)'

    def column(self, heading: str) -> list[Any]:
        """Return the raw values of the column ``heading``."""
        index = self.columns.index(heading)
        return [row[index] for row in self.rows]

    def cell(self, row_key: Any, heading: str) -> Any:
        """Return the raw value in column ``heading`` of the row that starts with ``row_key``."""
        index = self.columns.index(heading)
        for row in self.rows:
            if row[0] == row_key:
                return row[index]
        raise KeyError(f'table {self.name} has no row {row_key!r}; rows: '
                       f'{[r[0] for r in self.rows]}')

    def shown(self) -> list[list[str]]:
        """Return the rows as displayed strings."""
        return [[show(v, self.row_formats[i] if f == 'row' else f)
                 for v, f in zip(row, self.formats, strict=True)]
                for i, row in enumerate(self.rows)]

    def markdown(self) -> str:
        """Return the table as a Markdown section (heading, table, note)."""
        lines = [f'### {self.title}', '', '| ' + ' | '.join(self.columns) + ' |',
                 '|' + '|'.join('---' if f == '' else '---:' for f in self.formats) + '|']
        lines += ['| ' + ' | '.join(row) + ' |' for row in self.shown()]
        if self.note:
            lines += ['', self.note]
        return '\n'.join(lines) + '\n'

    def csv(self) -> str:
        """Return the table as CSV with raw values (empty for n/a)."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator='\n')
        writer.writerow(self.columns)
        for row in self.rows:
            writer.writerow(['' if v is None else v for v in row])
        return buffer.getvalue()

    def html(self) -> str:
        """Return the table as an HTML section."""
        head = ''.join(f'<th>{html.escape(c)}</th>' for c in self.columns)
        body = ''.join('<tr>' + ''.join(
            f'<td class="{"num" if f else "txt"}">{html.escape(v)}</td>'
            for v, f in zip(row, self.formats, strict=True)) + '</tr>' for row in self.shown())
        note = f'<p class="note">{html.escape(self.note)}</p>' if self.note else ''
        return (f'<section id="{self.name}"><h3>{html.escape(self.title)}</h3>'
                f'<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
                f'{note}</section>')


def show(value: Any, fmt: str) -> str:
    """Return ``value`` as displayed under format ``fmt``."""
    if value is None:
        return 'n/a'
    if fmt == 'pct':
        return f'{100 * value:.1f}%'
    if fmt == 'int':
        return f'{value:,.0f}'
    if fmt == 'usd':
        return f'${value:.4f}'
    if fmt == 'ratio':
        return f'{value:.2f}'
    if fmt == 'float':
        return f'{value:,.1f}'
    return str(value)

"""
The training curve: mean reward and loss per iteration from ``train_log.jsonl``, as SVG.

A self-contained SVG (no plotting library): one panel for the mean reward (0..1) with each
instance's success as dots, one for the loss. ``pyrua train --plot OUT`` writes it.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

WIDTH, PANEL_HEIGHT, MARGIN = 640, 200, 48


def read_log(path: str | Path) -> list[dict[str, Any]]:
    """
    Return the records of a training log.

    :param path: ``train_log.jsonl`` or the run folder holding it.
    :raises FileNotFoundError: when there is no log.
    """
    path = Path(path)
    if path.is_dir():
        path = path / 'train_log.jsonl'
    if not path.is_file():
        raise FileNotFoundError(f'no training log at {str(path)!r}; give the --out folder of '
                                'a pyrua train run')
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _panel(top: float, title: str, xs: list[int], series: list[float], lo: float, hi: float,
           dots: list[tuple[int, float]] = ()) -> list[str]:
    span = (hi - lo) or 1.0
    last = max(xs[-1], xs[0] + 1)

    def x(v: float) -> float:
        return MARGIN + (v - xs[0]) / (last - xs[0]) * (WIDTH - 2 * MARGIN)

    def y(v: float) -> float:
        return top + PANEL_HEIGHT - (v - lo) / span * PANEL_HEIGHT

    parts = [f'<text x="{MARGIN}" y="{top - 8}" font-size="13">{html.escape(title)}</text>',
             f'<rect x="{MARGIN}" y="{top}" width="{WIDTH - 2 * MARGIN}" '
             f'height="{PANEL_HEIGHT}" fill="none" stroke="#999"/>',
             f'<text x="4" y="{top + 10}" font-size="11">{hi:.3g}</text>',
             f'<text x="4" y="{top + PANEL_HEIGHT}" font-size="11">{lo:.3g}</text>']
    parts += [f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="2" fill="#9ab"/>' for i, v in dots]
    points = ' '.join(f'{x(i):.1f},{y(v):.1f}' for i, v in zip(xs, series, strict=True))
    parts.append(f'<polyline points="{points}" fill="none" stroke="#c33" stroke-width="2"/>')
    return parts


def write_curve(log: str | Path, out: str | Path) -> Path:
    """
    Write the SVG curve of a training log.

    :param log: ``train_log.jsonl`` or the run folder.
    :param out: the SVG file to write.
    :returns: the path written.
    :raises FileNotFoundError: when there is no log.
    :raises ValueError: when the log has no iteration yet.
    """
    records = read_log(log)
    if not records:
        raise ValueError(f'training log {log} has 0 iterations vs >= 1; plot after the first '
                         'iteration')
    xs = [r['iteration'] for r in records]
    rewards = [r['mean_reward'] for r in records]
    losses = [r['loss'] for r in records]
    dots = [(r['iteration'], v) for r in records for v in r['success_per_instance'].values()]
    top2 = 2 * MARGIN + PANEL_HEIGHT
    body = _panel(MARGIN, 'mean reward (success) per iteration; dots: instances', xs, rewards,
                  0.0, 1.0, dots)
    body += _panel(top2, 'loss per iteration', xs, losses, min(losses), max(losses))
    body.append(f'<text x="{WIDTH / 2 - 20}" y="{top2 + PANEL_HEIGHT + 30}" '
                'font-size="12">iteration</text>')
    height = top2 + PANEL_HEIGHT + MARGIN
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'font-family="sans-serif">\n' + '\n'.join(body) + '\n</svg>\n')
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(svg)
    return out

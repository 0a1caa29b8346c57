"""
Look at a task before running it: a layout's three camera images and contact sheets.

Images are captured through the Station interface (what an agent would see), written as
PNG with OpenCV. ``pyrua view`` calls these functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
import textwrap

import numpy as np
from pyrua_primitives.station import CAMERAS, station_cameras

from .benchmarks import is_benchmark_task, load as load_benchmark

SHEET_TILE = (320, 240)
"""Width and height of one contact-sheet tile, pixels."""
LABEL_HEIGHT = 66
LABEL_CHARS = 56


def _cv2():
    import cv2

    return cv2


def _write_png(path: Path, rgb: np.ndarray) -> Path:
    cv2 = _cv2()
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)):
        raise OSError(f'could not write {path}; check that the folder is writable')
    return path


def _label(tile: np.ndarray, lines: Sequence[str]) -> np.ndarray:
    cv2 = _cv2()
    band = np.full((LABEL_HEIGHT, tile.shape[1], 3), 32, dtype=np.uint8)
    wrapped = [part for line in lines for part in textwrap.wrap(line, LABEL_CHARS)][:4]
    for k, text in enumerate(wrapped):
        cv2.putText(band, text, (4, 14 + 15 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.38,
                    (235, 235, 235), 1, cv2.LINE_AA)
    return np.vstack([band, tile])


def render_views(
    task: str, seed: int, indices: Sequence[int], out_dir: str | Path
) -> list[Path]:
    """
    Render the head and both wrist cameras of each layout to PNG files.

    :param task: a registered task name.
    :param seed: layout seed, 0..999.
    :param indices: layout indices, each 0..49.
    :param out_dir: folder for ``<task>_s<seed>_i<index>_<camera>.png`` (created if missing).
    :returns: the written paths, three per index, in camera order.
    :raises ValueError: for an unknown task, or a seed or index out of range.
    :raises RendererUnavailable: when no offscreen OpenGL backend works.
    """
    from .twin import load_twin

    out = Path(out_dir)
    if is_benchmark_task(task):
        return _render_benchmark(task, indices, out)
    paths = []
    for index in indices:
        twin = load_twin(task, seed, index)
        try:
            for camera in CAMERAS:
                frame = twin.station.capture(camera)
                name = f'{task}_s{seed}_i{index:02d}_{camera}.png'
                paths.append(_write_png(out / name, frame.rgb))
        finally:
            twin.close()
    return paths


def _render_benchmark(task: str, indices: Sequence[int], out: Path) -> list[Path]:
    """Render every camera of a benchmark task at each init state (one environment)."""
    world = load_benchmark(task, indices[0] if indices else 0)
    paths = []
    safe = task.replace('/', '_')
    try:
        for index in indices:
            world.reset(index=index)
            for camera in station_cameras(world.station):
                frame = world.station.capture(camera)
                paths.append(_write_png(out / f'{safe}_i{index:02d}_{camera}.png', frame.rgb))
    finally:
        world.close()
    return paths


def contact_sheet(
    task: str, seed: int, indices: Sequence[int], out_dir: str | Path, columns: int = 5
) -> list[Path]:
    """
    Render one labelled grid of the head-camera image of each layout.

    A benchmark task (``'libero_goal/2'``) shows its first camera at each init state.

    :param task: a registered task name.
    :param seed: layout seed, 0..999.
    :param indices: layout indices, each 0..49.
    :param out_dir: folder for ``<task>_s<seed>_sheet.png`` (created if missing).
    :param columns: tiles per row.
    :returns: a one-element list with the sheet's path.
    :raises ValueError: for no indices or ``columns`` < 1 (and as ``render_views``).
    """
    from .twin import load_twin

    if not indices or columns < 1:
        raise ValueError(
            f'contact sheet of {len(indices)} layouts in {columns} columns vs at least 1 each; '
            'pass some indices'
        )
    cv2 = _cv2()
    tiles = []
    if is_benchmark_task(task):
        world = load_benchmark(task, indices[0])
        try:
            for index in indices:
                world.reset(index=index)
                camera = station_cameras(world.station)[0]
                rgb = world.station.capture(camera).rgb
                tile = cv2.resize(rgb, SHEET_TILE, interpolation=cv2.INTER_AREA)
                tiles.append(_label(tile, (f'{task} init state {index}', world.instruction)))
        finally:
            world.close()
    for index in indices if not tiles else ():
        twin = load_twin(task, seed, index)
        try:
            rgb = twin.station.capture('head').rgb
        finally:
            twin.close()
        tile = cv2.resize(rgb, SHEET_TILE, interpolation=cv2.INTER_AREA)
        look = 'randomized' if twin.layout.appearance.randomized else 'plain'
        tiles.append(_label(tile, (f'{task} seed {seed} index {index} ({look})',
                                   twin.instruction)))
    blank = np.zeros_like(tiles[0])
    rows = []
    for start in range(0, len(tiles), columns):
        row = tiles[start:start + columns]
        row += [blank] * (columns - len(row))
        rows.append(np.hstack(row))
    name = task.replace('/', '_')
    return [_write_png(Path(out_dir) / f'{name}_s{seed}_sheet.png', np.vstack(rows))]

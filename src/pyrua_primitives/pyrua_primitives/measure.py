"""
``measure``: move a wrist camera to a good viewpoint over an object and locate it there.

One view cannot tell a low object from a tall one; the head camera and a wrist camera
looking down from above the object can (``perception.footprint``). The wrist camera sits
0.10 m above the point between the finger pads and 0.06 m to the side, and looks at the
point about 0.16 m below itself, under the pads: with the gripper pointing down over an
object, the object is in the middle of the wrist image. Viewpoints are tried in the order
of ``VIEWPOINTS`` (measured on the twin by ``benchmarks/bench_locate.py --measure``), from
the arm nearer the object first, until one gives a measured height.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
import math

from .perception import LocateResult
from .results import MoveResult


@dataclass(frozen=True, slots=True)
class Viewpoint:
    """
    A viewpoint: where the wrist camera looks relative to the object, pad height, tilt.

    The pads first go to the object's rough centre plus (dx, dy) at this height; then, if
    the camera's optical axis misses that point (a tilted gripper looks aside), they shift
    once so that it passes through it. An offset views the object off-centre, from a
    slightly different angle (a top face seen straight down can glare).
    """

    dx_m: float
    dy_m: float
    above_table_m: float
    max_tilt_rad: float


VIEWPOINTS: tuple[Viewpoint, ...] = (
    Viewpoint(0.0, 0.0, 0.16, 0.6),
    Viewpoint(0.03, 0.03, 0.16, 0.6),
    Viewpoint(-0.03, 0.03, 0.16, 0.6),
    Viewpoint(0.03, -0.03, 0.16, 0.6),
    Viewpoint(0.0, 0.0, 0.11, 0.0),
)
"""Viewpoints, best first; the pads stay at least 0.11 m above the table (a stacked
block's top is at 0.08 m)."""
AIM_TOLERANCE_M = 0.015
"""A wrist camera whose optical axis passes farther than this from the object is re-aimed."""
SAME_OBJECT_M = 0.05
"""A wrist-view match this close (metres, in the table plane) to the rough centre is it."""


def measure_object(
    locate: Callable[..., LocateResult],
    locate_all: Callable[..., list[LocateResult]],
    move_to: Callable[..., MoveResult],
    aim: Callable[[str, float], tuple[float, float] | None],
    query: str,
    views: dict[str, list[str]],
    table_z_m: float,
    bases_xy: dict[str, tuple[float, float]],
) -> LocateResult:
    """
    Locate ``query``; when its height is not measured, look from above with a wrist camera.

    :param locate: the library's ``locate(query, cameras=None)``.
    :param locate_all: the library's ``locate_all(query, cameras=None)``: a wrist view may
        also see other objects of that name; the one nearest the rough estimate is taken.
    :param move_to: the library's ``move_to(arm, xyz, heading, max_tilt=..., path=...)``.
    :param aim: ``aim(arm, z)``: where that arm's wrist camera's optical axis meets the
        plane at height z (x, y), or None; a tilted wrist looks off to the side, so the
        viewpoint is shifted once to put the object on the axis.
    :param views: for each arm allowed to move, the cameras to locate with once it is there
        (the head and its wrist camera; tried nearest the object first).
    :param table_z_m: table-top height, metres.
    :param bases_xy: each arm's base position (x, y), metres.
    :returns: the first measured LocateResult; else the rough one with a ``note`` that
        says what each viewpoint gave; a not-found result as ``locate`` gave it.
    """
    rough = locate(query)
    if not rough.found or rough.height_m is not None:
        return rough
    if not views:
        return replace(rough, note='no arm here has a wrist camera (and a head camera) to '
                                   'measure it with')
    x, y, _ = rough.position_m
    order = sorted(views, key=lambda a: math.dist(bases_xy[a], (x, y)))
    tried: list[str] = []
    for arm in order:
        for view in VIEWPOINTS:
            target = [x + view.dx_m, y + view.dy_m, table_z_m + view.above_table_m]
            moved = move_to(arm, target, 0.0, max_tilt=view.max_tilt_rad)
            if not moved.reached and moved.duration_s == 0.0:
                # Refused before moving (e.g. no straight line): a joint-space move may go.
                moved = move_to(arm, target, 0.0, max_tilt=view.max_tilt_rad, path='joint')
            at = f'({target[0]:.3f}, {target[1]:.3f}, {target[2]:.3f})'
            if moved.reason.startswith('motion stopped'):
                return replace(rough, note=f'measure stopped: {moved.reason}')
            if not moved.reached:
                tried.append(f'{arm} to {at}: {moved.reason[:70]}')
                continue
            hit, want = aim(arm, table_z_m + 0.02), (x + view.dx_m, y + view.dy_m)
            if hit is not None and math.dist(hit, want) > AIM_TOLERANCE_M:
                shifted = [target[0] + want[0] - hit[0], target[1] + want[1] - hit[1], target[2]]
                again = move_to(arm, shifted, 0.0, max_tilt=view.max_tilt_rad)
                if again.reason.startswith('motion stopped'):
                    return replace(rough, note=f'measure stopped: {again.reason}')
            seen = [r for r in locate_all(query, cameras=views[arm])
                    if math.dist(r.position_m[:2], (x, y)) <= SAME_OBJECT_M]
            fine = min(seen, key=lambda r: math.dist(r.position_m[:2], (x, y)), default=None)
            if fine is not None and fine.height_m is not None:
                return replace(fine, query=query)
            why = 'lost it' if fine is None else fine.note.split('; robo.measure')[0]
            tried.append(f'{views[arm][-1]} from {at}: {why[:70]}')
    more = f' (+{len(tried) - 2} more)' if len(tried) > 2 else ''
    return replace(rough, note=(f'height not measured from {len(tried)} viewpoint(s): '
                                f'{"; ".join(tried[:2])}{more}; the object may be hidden: '
                                'look with robo.show'))

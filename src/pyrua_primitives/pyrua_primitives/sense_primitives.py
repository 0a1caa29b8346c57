"""
The perception primitives of ``PrimitiveLibrary``: locate, measure, images and cameras.

Each function here is a method of ``PrimitiveLibrary`` (``self`` is the library; the class
body in ``library.py`` binds them), so its signature and docstring are the model's API
reference. They capture frames only on request; ``measure`` also moves a wrist camera.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
import math

import numpy as np

from .cancel import CancelToken
from .measure import measure_object
from .perception import (
    back_project as _back_project,
)
from .perception import (
    BackProjectResult,
    CameraMeta,
    LocateResult,
)
from .perception import (
    camera_meta as _camera_meta,
)
from .perception import (
    depth_point as _depth_point,
)
from .perception import (
    locate as _locate,
)
from .perception import (
    locate_all as _locate_all,
)
from .registry import primitive

_AWAY_FROM_HOME_M = 0.02
_HELD_NEAR_M = 0.06


def _check_query(query: object) -> None:
    if not isinstance(query, str) or not query.strip():
        raise TypeError(f"query must be a non-empty string like 'red block', got {query!r}")


def _maybe_hidden(reason: str) -> bool:
    """Return whether a not-found reason could come from an arm hiding the object."""
    return reason.startswith('no ') or '-like region(s) in' in reason


def _hidden_hint(away: Sequence[str], homed: Sequence[str]) -> str:
    """Say which arms were out over the table: moved home, or left there."""
    if homed:
        return f' (also with the {" and ".join(homed)} arm moved home first)'
    if not away:
        return ''
    return (f'; the {" and ".join(away)} arm is out over the table and may hide it from '
            f'the head camera: robo.home({away[0]!r}) and look again')


def _away_from_home(library, arm: str) -> bool:
    """Return whether ``arm``'s pads are more than 2 cm from its ready pose."""
    home = library.arm_model.home_tcp_pose(arm)[:3, 3]
    distance = np.linalg.norm(np.subtract(library.pose(arm).position_m, home))
    return float(distance) > _AWAY_FROM_HOME_M


def _holding_it(library, rough: LocateResult, arms: Sequence[str]) -> list[str]:
    """Return the arms in ``arms`` whose closed gripper holds the located object."""
    if not rough.found:
        return []
    out = []
    for name in arms:
        pose = library.pose(name)
        if pose.held and math.dist(pose.position_m[:2], rough.position_m[:2]) <= _HELD_NEAR_M:
            out.append(name)
    return out


@primitive(action='Locate')
def locate(self, query: str, cameras: Sequence[str] | None = None) -> LocateResult:
    """
    Find an object by name in fresh camera images and measure it (RGB only).

    :param query: '<colour> <noun>', e.g. 'red block', 'blue bowl', 'green zone';
        optionally prefixed by 'leftmost', 'rightmost' (smallest, largest x) or
        'nearest' (smallest y: nearest the arm bases) when several match.
        Colours: red, green, blue, yellow, orange, purple. Nouns: block, bowl, zone,
        marker, peg, button; 'hole' (white) only with the 'sam3' segmenter, not the
        default colour one. A block inside a bowl of its colour merges with the bowl.
    :param cameras: camera names to look with; default: the head camera plus each
        wrist camera. One view gives no height; a second (a wrist camera from above)
        measures it: robo.measure does that for you.
    :returns: LocateResult with ``found``, ``colour`` (as seen), ``position_m`` (x, y,
        z of the object's centre, world frame, metres), ``size_m`` (footprint w, d),
        ``height_m``, ``top_z_m`` (top surface height), ``heading_rad`` (yaw of the
        side of length w, a box's longer one: move_to(heading=h) closes the fingers
        along it, h + pi/2 along the other),
        ``height_source`` ('rgb_hull' measured by two views, 'flat', 'depth', or 'none'),
        ``bound_m`` (x, y, z error that held for 90% of such estimates), ``cameras``
        and ``note`` (why no height). Unknown values are None: z, height_m, top_z_m when
        the height was not measured; position_m when not found (then ``reason`` says
        why: unknown word, nothing seen, several matches). Never a guessed position.
    """
    _check_query(query)
    frames = self._frames(cameras)
    return _locate(frames, query, self.segmenter, self.station.table_height_m())


@primitive()
def locate_all(self, query: str, cameras: Sequence[str] | None = None) -> list[LocateResult]:
    """
    Find every object that matches a query, e.g. all blocks: 'block'.

    :returns: a list of found LocateResults, left to right (smallest x first); empty
        when none matched (robo.locate says why).
    """
    _check_query(query)
    frames = self._frames(cameras)
    return _locate_all(frames, query, self.segmenter, self.station.table_height_m())


@primitive(acting=True)
def measure(self, query: str, arm: str | None = None, *,
            cancel: CancelToken | None = None) -> LocateResult:
    """
    Locate an object and measure its height, moving a wrist camera above it if needed.

    :param query: as for locate.
    :param arm: the arm that may move ('left' or 'right'; pass the free one while the
        other holds something); default: the nearer one, then the other. The arm stays
        where it looked (above the object). A free arm out over the table that hides
        the object from the head camera is moved home first (the note says so).
    :returns: a LocateResult measured by the head and a wrist camera; when no
        viewpoint gave a height, the head-only result with a ``note`` saying why.
    """
    _check_query(query)
    arms = self.arms if arm is None else (self._arm(arm),)
    rough, homed = self.locate(query), []
    if not rough.found and _maybe_hidden(rough.reason):
        # An arm over the table hides part of the object from the head camera.
        away = [a for a in self.arms if _away_from_home(self, a)]
        # An arm that holds something carries it home (its grip is kept): the caller let
        # it move, and a bowl it hides is not found while it stays (issue 31).
        homed = [a for a in away if a in arms]
        carrying = [a for a in homed if self.pose(a).held]
        for name in homed:
            self.home(name, cancel=cancel)
        rough = self.locate(query) if homed else rough
        if not rough.found:
            return replace(rough, reason=rough.reason + _hidden_hint(away, homed))
    holders = _holding_it(self, rough, arms)
    views = {a: ['head', f'{a}_wrist'] for a in arms
             if {'head', f'{a}_wrist'} <= set(self.cameras) and a not in holders}
    bases = {a: tuple(float(c) for c in self.station.arm_base(a).world_from_base[:2, 3])
             for a in views}

    def move(arm_name, xyz, heading, max_tilt, path='line'):
        return self.move_to(arm_name, xyz, heading, max_tilt=max_tilt, path=path,
                            cancel=cancel)

    def aim(arm_name, z):
        model = self.station.camera_model(f'{arm_name}_wrist')
        origin, forward = model.position_m, model.forward
        if forward[2] > -0.1:
            return None
        hit = origin + forward * ((z - origin[2]) / forward[2])
        return float(hit[0]), float(hit[1])

    def locate_once(q, cameras=None):
        return first.pop() if first and cameras is None else self.locate(q, cameras)

    first = [rough]
    result = measure_object(locate_once, self.locate_all, move, aim, query, views,
                            self.station.table_height_m(), bases)
    if result.found and homed:
        moved = ' and '.join(f'robo.home({a!r})' for a in homed)
        kept = ''.join(f'; the {a} arm still holds what it held'
                       for a in carrying if self.pose(a).held)
        result = replace(result, note=f'found after {moved}: that arm hid it from the '
                         f'head camera{kept}' + (f'; {result.note}' if result.note else ''))
    if holders and result.found and result.height_m is None:
        held, tried = holders[0], f'; {result.note}' if views and result.note else ''
        result = replace(result, note=(
            f'{query!r} is in the {held} gripper: its own wrist camera cannot measure '
            'what it holds (it looks past the fingers); measure it with the other arm, '
            f'or use robo.pose({held!r}).position_m (a held object moves with the pads)'
            + tried))
    return result


@primitive()
def image(self, camera: str) -> np.ndarray:
    """
    Capture one RGB image now, for the program (it is not sent to the model).

    :param camera: 'head', 'left_wrist' or 'right_wrist'.
    :returns: an H x W x 3 uint8 array (row 0 at the top). Use robo.show(camera) to
        let the model see an image.
    """
    return self._capture(self._camera(camera)).rgb


@primitive()
def camera_meta(self, camera: str) -> CameraMeta:
    """
    Describe a camera now: image size, focal lengths, field of view, pose.

    :param camera: 'head', 'left_wrist' or 'right_wrist' (wrist cameras move with
        their arm).
    :returns: CameraMeta with width_px, height_px, fx_px, fy_px, hfov_deg, vfov_deg,
        position_m, forward (unit viewing direction), pitch_deg, yaw_deg.
    """
    return _camera_meta(self.station.camera_model(self._camera(camera)))


@primitive()
def back_project(self, camera: str, u: float, v: float,
                 z: float | None = None, *, depth: bool = False) -> BackProjectResult:
    """
    Find the world point seen at pixel (u, v), on the horizontal plane at height z.

    With ``depth=True`` (only where depth is enabled) a fresh depth image gives the
    point on whatever surface the pixel shows instead: ground a pixel of an image from
    robo.show in 3-D.

    :param camera: 'head', 'left_wrist' or 'right_wrist'.
    :param u: pixel column (0 = left edge of the image).
    :param v: pixel row (0 = top edge).
    :param z: plane height in metres (world frame); default: the table top.
    :param depth: True: the surface seen at the pixel, from a fresh depth image (z is
        then not used).
    :returns: BackProjectResult with ``hit``, ``point_m`` (x, y, z) and ``range_m``;
        ``hit=False`` with a reason when the pixel is outside the image, its ray
        misses the plane, or (depth) the pixel has no depth.
    """
    for name, value in (('u', u), ('v', v)):
        if not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f'{name}={value!r} must be a finite pixel coordinate')
    if depth:
        if not self.config.use_depth:
            raise ValueError('depth=True vs use_depth=False: depth is not enabled here; '
                             'enable it (pyrua run --depth) or pass a plane height z')
        frame = self._capture(self._camera(camera))
        return _depth_point(frame.model, frame.depth_m, float(u), float(v))
    plane = self.station.table_height_m() if z is None else float(z)
    if not math.isfinite(plane):
        raise ValueError(f'z={z!r} must be a finite height in metres')
    model = self.station.camera_model(self._camera(camera))
    return _back_project(model, float(u), float(v), plane)

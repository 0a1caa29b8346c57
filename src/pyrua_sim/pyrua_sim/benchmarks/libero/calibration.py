"""
What a LIBERO scene's MJCF says about the station: where the TCP sits, and the table top.

``site_from_tcp`` places the library's TCP (between the finger pads, x = approach, y = the
closing line) in the frame of the Panda's eef site, measured from the hand and finger
geometry; ``table_height`` finds the surface the task's objects stand on. Both read the
compiled model, never a number written for one scene.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np


def _body(model: mujoco.MjModel, name: str) -> int:
    return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)


def site_from_tcp(model: mujoco.MjModel, data: mujoco.MjData, site: int,
                  fingertip_beyond_tcp_m: float) -> np.ndarray:
    """
    Return the TCP in the eef site's frame: pads centre, x = approach, y = closing line.

    The approach axis is the site axis that points from the hand to the finger tips; the
    closing line joins the two fingers; the TCP sits ``fingertip_beyond_tcp_m`` behind the
    finger tips.

    :param data: kinematics computed at the pose to measure (``mj_kinematics``).
    :param site: the eef site id.
    :returns: a 4x4 transform, site frame.
    """
    site_rot = data.site_xmat[site].reshape(3, 3)
    site_pos = data.site_xpos[site].copy()
    hand = _body(model, 'gripper0_right_gripper')
    if hand < 0:
        hand = _body(model, 'robot0_right_hand')
    fingers = [_body(model, name) for name in ('gripper0_leftfinger', 'gripper0_rightfinger')]
    approach_world = site_pos - data.xpos[hand]
    approach_world /= np.linalg.norm(approach_world)
    closing_world = data.xpos[fingers[1]] - data.xpos[fingers[0]]
    closing_world -= approach_world * (closing_world @ approach_world)
    closing_world /= np.linalg.norm(closing_world)
    x = site_rot.T @ approach_world
    y = site_rot.T @ closing_world
    rot = np.column_stack([x, y, np.cross(x, y)])
    tips = _finger_tip_depth(model, data, site_pos, approach_world)
    tcp = np.eye(4)
    tcp[:3, :3] = rot
    tcp[:3, 3] = x * (tips - fingertip_beyond_tcp_m)
    return tcp


def _finger_tip_depth(model: mujoco.MjModel, data: mujoco.MjData, site_pos: np.ndarray,
                      approach_world: np.ndarray) -> float:
    """Return how far beyond the eef site the finger geoms reach along the approach."""
    deepest = 0.0
    for geom in range(model.ngeom):
        body = model.geom_bodyid[geom]
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, body) or ''
        if 'finger' not in name:
            continue
        rbound = float(model.geom_rbound[geom])
        centre = float((data.geom_xpos[geom] - site_pos) @ approach_world)
        extent = _geom_extent(model, data, geom, approach_world) if rbound > 0 else 0.0
        deepest = max(deepest, centre + extent)
    return deepest


def _geom_extent(model: mujoco.MjModel, data: mujoco.MjData, geom: int,
                 axis: np.ndarray) -> float:
    size = model.geom_size[geom]
    kind = model.geom_type[geom]
    rot = data.geom_xmat[geom].reshape(3, 3)
    local = rot.T @ axis
    if kind == mujoco.mjtGeom.mjGEOM_BOX:
        return float(np.abs(local) @ size)
    if kind == mujoco.mjtGeom.mjGEOM_MESH:
        return float(np.abs(local) @ model.geom_aabb[geom][3:])
    return float(model.geom_rbound[geom])


def table_height(model: mujoco.MjModel, data: mujoco.MjData) -> float:
    """
    Return the top z of the surface a LIBERO scene's objects stand on, from its MJCF geometry.

    The table is the box geom of the largest horizontal area whose name says table
    (``main_table``, ``kitchen_table``, ``living_room_table``, ``study_table``, ...); its top
    is its centre z plus its vertical half-extent (boxes may be rotated). Scenes
    without a table (LIBERO-Object) use the floor plane.
    """
    best, top = -1.0, math.nan
    for geom in range(model.ngeom):
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, geom) or ''
        body = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, model.geom_bodyid[geom]) or ''
        if 'table' not in name and 'table' not in body:
            continue
        if model.geom_type[geom] != mujoco.mjtGeom.mjGEOM_BOX:
            continue
        # world half-extents of the (possibly rotated) box
        half = np.abs(data.geom_xmat[geom].reshape(3, 3)) @ model.geom_size[geom]
        area = float(half[0] * half[1])
        if area > best:
            best, top = area, float(data.geom_xpos[geom][2] + half[2])
    if math.isfinite(top):
        return top
    # Floor scenes (LIBERO-Object): the objects stand on the floor plane.
    floor = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, 'floor')
    if floor >= 0 and model.geom_type[floor] == mujoco.mjtGeom.mjGEOM_PLANE:
        return float(data.geom_xpos[floor][2])
    raise ValueError('LIBERO scene has no box geom named like a table and no floor plane; '
                     'cannot give the height of the surface the objects stand on')

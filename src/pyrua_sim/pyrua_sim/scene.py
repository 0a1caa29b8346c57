"""
Build a task scene: the station model plus a layout's objects, materials and light.

Objects are made of simple shapes. Contact settings follow ``model/station.xml``: object
geoms keep MuJoCo's defaults (contype/conaffinity 1, condim 3, friction 1), so they touch
the table, each other and the finger pads; flat mats (zones, markers) are visual only,
so a pushed block slides over them instead of catching on a 2 mm edge.

- ``block`` 4 cm cube, 50 g, free joint; ``peg`` 3 x 3 x 7 cm, 60 g, free.
- ``bowl``: a flat floor and 16 wall boxes; fixed to the table (no joint), so bumping it
  moves nothing and tasks can rely on its position.
- ``hole``: four fixed boxes leaving a 3.4 cm square opening.
- ``button``: a grey base (body ``<name>_base``) and a coloured cap (body ``<name>``) on a
  vertical slide joint with a preloaded spring (300 N/m); pressed when the cap is >= 5 mm down.
- distractors (``cylinder``, ``ball``): free, 40 g.
"""

from __future__ import annotations

import math

import mujoco

from .layout import BUTTON_BASE_HEIGHT_M, HOLE_OPENING_M, Layout, ObjectSpec
from .model import station_spec

BOX = mujoco.mjtGeom.mjGEOM_BOX
CYLINDER = mujoco.mjtGeom.mjGEOM_CYLINDER
SPHERE = mujoco.mjtGeom.mjGEOM_SPHERE
MASS_KG = {'block': 0.05, 'peg': 0.06, 'cylinder': 0.04, 'ball': 0.04}
BOWL_WALLS = 16
WALL_M = 0.006
BOWL_FLOOR_M = 0.006
BUTTON_STIFFNESS_N_M = 300.0
BUTTON_TRAVEL_M = 0.012
BUTTON_CAP_M = (0.02, 0.0075)
"""Cap radius and half-height."""


def _rgba(spec: ObjectSpec) -> list[float]:
    return [*spec.rgb, 1.0]


def _visual_only(geom) -> None:
    geom.contype = 0
    geom.conaffinity = 0


def _add_free(world, spec: ObjectSpec) -> None:
    body = world.add_body(name=spec.name, pos=spec.pose[:3], quat=spec.pose[3:])
    body.add_freejoint(name=f'{spec.name}/free')
    sx, sy, sz = spec.size
    if spec.kind == 'ball':
        geom = body.add_geom(type=SPHERE, size=[sx / 2.0, 0, 0])
    elif spec.kind == 'cylinder':
        geom = body.add_geom(type=CYLINDER, size=[sx / 2.0, sz / 2.0, 0])
    else:
        geom = body.add_geom(type=BOX, size=[sx / 2.0, sy / 2.0, sz / 2.0])
    geom.name = f'{spec.name}/geom'
    geom.rgba = _rgba(spec)
    geom.mass = MASS_KG[spec.kind]


def _add_bowl(world, spec: ObjectSpec) -> None:
    body = world.add_body(name=spec.name, pos=spec.pose[:3], quat=spec.pose[3:])
    outer = spec.size[0] / 2.0
    height = spec.size[2]
    floor = body.add_geom(type=CYLINDER, size=[outer - WALL_M, BOWL_FLOOR_M / 2.0, 0],
                          pos=[0, 0, BOWL_FLOOR_M / 2.0], rgba=_rgba(spec))
    floor.name = f'{spec.name}/floor'
    radius = outer - WALL_M / 2.0
    half_len = math.pi * radius / BOWL_WALLS * 1.08
    for k in range(BOWL_WALLS):
        angle = 2.0 * math.pi * k / BOWL_WALLS
        body.add_geom(
            name=f'{spec.name}/wall_{k}', type=BOX, size=[WALL_M / 2.0, half_len, height / 2.0],
            pos=[radius * math.cos(angle), radius * math.sin(angle), height / 2.0],
            quat=[math.cos(angle / 2.0), 0, 0, math.sin(angle / 2.0)], rgba=_rgba(spec),
        )


def _add_flat(world, spec: ObjectSpec) -> None:
    body = world.add_body(name=spec.name, pos=spec.pose[:3], quat=spec.pose[3:])
    sx, sy, sz = spec.size
    if spec.kind == 'zone':
        strips = [(sx / 2.0, sy / 2.0)]
    else:  # marker: a cross of two 6 x 1 cm strips
        strips = [(sx / 2.0, 0.005), (0.005, sy / 2.0)]
    for k, (hx, hy) in enumerate(strips):
        geom = body.add_geom(name=f'{spec.name}/strip_{k}', type=BOX, size=[hx, hy, sz / 2.0],
                             pos=[0, 0, sz / 2.0 + 0.0002 * k], rgba=_rgba(spec))
        _visual_only(geom)


def _add_hole(world, spec: ObjectSpec) -> None:
    body = world.add_body(name=spec.name, pos=spec.pose[:3], quat=spec.pose[3:])
    outer, height = spec.size[0] / 2.0, spec.size[2] / 2.0
    inner = HOLE_OPENING_M / 2.0
    wall = (outer - inner) / 2.0
    centre = inner + wall
    walls = [
        ([outer, wall, height], [0, centre, height]),
        ([outer, wall, height], [0, -centre, height]),
        ([wall, inner, height], [centre, 0, height]),
        ([wall, inner, height], [-centre, 0, height]),
    ]
    for k, (size, pos) in enumerate(walls):
        body.add_geom(name=f'{spec.name}/wall_{k}', type=BOX, size=size, pos=pos,
                      rgba=_rgba(spec))


def _add_button(spec_model, world, spec: ObjectSpec) -> None:
    x, y, z = spec.pose[:3]
    base = world.add_body(name=f'{spec.name}_base', pos=[x, y, z])
    base.add_geom(name=f'{spec.name}_base/geom', type=CYLINDER,
                  size=[spec.size[0] / 2.0, BUTTON_BASE_HEIGHT_M / 2.0, 0],
                  pos=[0, 0, BUTTON_BASE_HEIGHT_M / 2.0], rgba=[0.5, 0.5, 0.5, 1.0])
    cap = world.add_body(name=spec.name, pos=[x, y, z + BUTTON_BASE_HEIGHT_M])
    # Preloaded spring: at rest it pushes the cap up against the joint's upper limit (0).
    cap.add_joint(name=f'{spec.name}/slide', type=mujoco.mjtJoint.mjJNT_SLIDE, axis=[0, 0, 1],
                  range=[-BUTTON_TRAVEL_M, 0.0], limited=mujoco.mjtLimited.mjLIMITED_TRUE,
                  stiffness=BUTTON_STIFFNESS_N_M, springref=0.0015, damping=3.0)
    radius, half = BUTTON_CAP_M
    cap.add_geom(name=f'{spec.name}/cap', type=CYLINDER, size=[radius, half, 0],
                 pos=[0, 0, half], rgba=_rgba(spec), mass=0.02)
    spec_model.add_exclude(bodyname1=f'{spec.name}_base', bodyname2=spec.name)


def _apply_appearance(spec_model, layout: Layout) -> None:
    look = layout.appearance
    table = spec_model.material('table_top')
    table.rgba = [*look.table_rgb, 1.0]
    if look.table_texture != 'plain':
        r, g, b = look.table_rgb
        darker = [c * 0.82 for c in (r, g, b)]
        checker = look.table_texture == 'checker'
        spec_model.add_texture(
            name='table_pattern', type=mujoco.mjtTexture.mjTEXTURE_2D, width=256, height=256,
            builtin=mujoco.mjtBuiltin.mjBUILTIN_CHECKER if checker
            else mujoco.mjtBuiltin.mjBUILTIN_FLAT,
            mark=mujoco.mjtMark.mjMARK_NONE if checker else mujoco.mjtMark.mjMARK_RANDOM,
            random=0.0 if checker else 0.15, rgb1=[r, g, b], rgb2=darker, markrgb=darker,
        )
        textures = list(table.textures)
        textures[int(mujoco.mjtTextureRole.mjTEXROLE_RGB)] = 'table_pattern'
        table.textures = textures
        table.rgba = [1.0, 1.0, 1.0, 1.0]
        table.texrepeat = [6, 6]
    key = spec_model.light('key')
    key.pos = list(look.light_pos)
    key.diffuse = [look.light_diffuse] * 3


def build_scene(layout: Layout) -> mujoco.MjModel:
    """
    Compile the station with ``layout``'s objects, appearance and light.

    :param layout: a sampled layout (see ``pyrua_sim.tasks``).
    :returns: the compiled model; free objects start at their layout poses (qpos0).
    :raises ValueError: for an object kind the scene cannot build.
    """
    spec_model = station_spec()
    world = spec_model.worldbody
    for spec in layout.objects:
        if spec.kind in MASS_KG:
            _add_free(world, spec)
        elif spec.kind == 'bowl':
            _add_bowl(world, spec)
        elif spec.kind in ('zone', 'marker'):
            _add_flat(world, spec)
        elif spec.kind == 'hole':
            _add_hole(world, spec)
        elif spec.kind == 'button':
            _add_button(spec_model, world, spec)
        else:
            raise ValueError(
                f'object kind {spec.kind!r} of {spec.name!r} is not buildable; kinds: '
                f"{sorted([*MASS_KG, 'bowl', 'zone', 'marker', 'hole', 'button'])}"
            )
    _apply_appearance(spec_model, layout)
    return spec_model.compile()

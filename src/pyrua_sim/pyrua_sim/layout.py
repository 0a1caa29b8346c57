"""
Task layouts: which objects stand where, in which colours, under which appearance.

A layout is plain data (frozen dataclasses), sampled deterministically from
``(task, seed, index)`` and turned into a MuJoCo scene by ``scene.build_scene``.

Pose convention of ``ObjectSpec.pose`` (x, y, z, qw, qx, qy, qz), world frame, metres:

- free objects (``block``, ``peg``, distractors): the body origin is the object's centre;
- fixtures (``bowl``, ``zone``, ``marker``, ``hole``, ``button``): the origin is the centre
  of the footprint on the table top (z = ``TABLE_Z``).

The table top and the arm bases are read from the compiled MJCF (``model.station_geometry``),
never copied here. The reach rule is the project's decision (reference/arx_x5.md §2): an arm
can grasp top-down what lies within ``REACH_M`` horizontally of its base (inside the
straight-down band the station facts state); "out of reach" means farther than
``OUT_OF_REACH_M``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import hashlib
import math

import numpy as np
from pyrua_primitives.perception.query import COLOURS

from .errors import LayoutError
from .model import station_geometry

TABLE_Z = station_geometry().table_z_m
ARM_BASES_XY: dict[str, tuple[float, float]] = station_geometry().arm_bases_xy
REACH_M = (0.18, 0.40)
OUT_OF_REACH_M = 0.62
WORK_X = (-0.45, 0.45)
WORK_Y = (-0.30, 0.05)
MIN_GAP_M = 0.03
"""Clearance kept between the footprints of any two objects."""

SEEDS = range(0, 1000)
INDICES = range(0, 50)
RANDOMIZED_FROM = 25
"""Generalization tasks randomise appearance and add distractors from this index on."""

FIXTURE_COLOURS: dict[str, tuple[float, float, float]] = {
    'white': (0.92, 0.92, 0.90),
    'grey': (0.50, 0.50, 0.50),
    'black': (0.08, 0.08, 0.08),
}

BLOCK_SIZE_M = 0.04
BOWL_SIZE_M = (0.13, 0.13, 0.04)
ZONE_SIZE_M = (0.12, 0.12, 0.002)
MARKER_SIZE_M = (0.06, 0.06, 0.001)
PEG_SIZE_M = (0.03, 0.03, 0.07)
HOLE_SIZE_M = (0.10, 0.10, 0.04)
HOLE_OPENING_M = 0.034
BUTTON_SIZE_M = (0.06, 0.06, 0.045)
"""Base 6 cm wide and 3 cm high plus a 4 cm cap standing 1.5 cm proud."""
BUTTON_BASE_HEIGHT_M = 0.03
FOOTPRINT_RADIUS_M: dict[str, float] = {
    'block': BLOCK_SIZE_M * math.sqrt(0.5),
    'bowl': BOWL_SIZE_M[0] / 2.0,
    'zone': ZONE_SIZE_M[0] * math.sqrt(0.5),
    'marker': MARKER_SIZE_M[0] / 2.0,
    'peg': PEG_SIZE_M[0] * math.sqrt(0.5),
    'hole': HOLE_SIZE_M[0] * math.sqrt(0.5),
    'button': BUTTON_SIZE_M[0] / 2.0,
    'cylinder': 0.025,
    'ball': 0.025,
}
"""Radius of the circle that covers each kind's footprint, metres."""
FREE_KINDS = frozenset({'block', 'peg', 'cylinder', 'ball'})
TEXTURES = ('plain', 'checker', 'speckle')


class UnreachableLayoutError(LayoutError):
    """No valid layout could be sampled for a (task, seed, index)."""


@dataclass(frozen=True, slots=True)
class ObjectSpec:
    """
    One object of a layout.

    ``role`` says what the task uses it for (``'target'``, ``'goal'``, ``'distractor'``, ...);
    ``size`` is the full extent (x, y, z) in metres; ``pose`` follows the module convention.
    """

    name: str
    kind: str
    colour: str
    size: tuple[float, float, float]
    pose: tuple[float, float, float, float, float, float, float]
    role: str = ''

    @property
    def xy(self) -> np.ndarray:
        """Return the footprint centre (x, y) in metres."""
        return np.array(self.pose[:2])

    @property
    def rgb(self) -> tuple[float, float, float]:
        """Return the colour as RGB in [0, 1]."""
        return COLOURS.get(self.colour) or FIXTURE_COLOURS[self.colour]

    @property
    def noun(self) -> str:
        """Return how instructions name the object: ``'<colour> <kind>'``."""
        return f'{self.colour} {self.kind}'

    def __repr__(self) -> str:
        x, y, z = self.pose[:3]
        return f'ObjectSpec({self.name!r}, at ({x:.3f}, {y:.3f}, {z:.3f}) m, role={self.role!r})'


@dataclass(frozen=True, slots=True)
class Appearance:
    """Table colour and texture, and the key light; ``randomized`` marks the randomized half."""

    randomized: bool = False
    table_rgb: tuple[float, float, float] = (0.62, 0.58, 0.52)
    table_texture: str = 'plain'
    light_pos: tuple[float, float, float] = (0.0, -0.3, 2.2)
    light_diffuse: float = 0.7

    def __repr__(self) -> str:
        r, g, b = self.table_rgb
        return (
            f'Appearance(randomized={self.randomized}, table=({r:.2f}, {g:.2f}, {b:.2f}) '
            f'{self.table_texture}, light={self.light_diffuse:.2f})'
        )


@dataclass(frozen=True, slots=True)
class Layout:
    """A sampled scene: task name, seed, index, objects, instruction and appearance."""

    task: str
    seed: int
    index: int
    objects: tuple[ObjectSpec, ...]
    instruction: str
    appearance: Appearance = field(default_factory=Appearance)

    def find(self, name: str) -> ObjectSpec:
        """
        Return the object called ``name``.

        :raises KeyError: listing the layout's object names.
        """
        for spec in self.objects:
            if spec.name == name:
                return spec
        raise KeyError(f'no object {name!r} in layout; objects: {[o.name for o in self.objects]}')

    def with_role(self, role: str) -> tuple[ObjectSpec, ...]:
        """Return the objects whose role is ``role``, in layout order."""
        return tuple(o for o in self.objects if o.role == role)

    def __repr__(self) -> str:
        return (
            f'Layout({self.task!r}, seed={self.seed}, index={self.index}, '
            f'{len(self.objects)} objects: {self.instruction!r})'
        )


def check_seed_index(seed: int, index: int) -> None:
    """
    Refuse a seed or layout index outside the valid ranges.

    :raises LayoutError: (a ValueError) naming the value and the valid range.
    """
    if not isinstance(seed, (int, np.integer)) or seed not in SEEDS:
        raise LayoutError(
            f'seed {seed!r} vs valid range {SEEDS.start}..{SEEDS.stop - 1}; pick a seed in range'
        )
    if not isinstance(index, (int, np.integer)) or index not in INDICES:
        raise LayoutError(
            f'layout index {index!r} vs valid range {INDICES.start}..{INDICES.stop - 1}; '
            'pick an index in range'
        )


def layout_rng(task: str, seed: int, index: int) -> np.random.Generator:
    """Return a generator seeded stably (SHA-256, not ``hash()``) from the triple."""
    digest = hashlib.sha256(f'{task}/{seed}/{index}'.encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], 'little'))


def yaw_quat(yaw_rad: float) -> tuple[float, float, float, float]:
    """Return the quaternion (w, x, y, z) of a rotation by ``yaw_rad`` about world z."""
    return (math.cos(yaw_rad / 2.0), 0.0, 0.0, math.sin(yaw_rad / 2.0))


def arm_distance(arm: str, xy: np.ndarray) -> float:
    """Return the horizontal distance in metres from ``arm``'s base to ``xy``."""
    bx, by = ARM_BASES_XY[arm]
    return float(math.hypot(xy[0] - bx, xy[1] - by))


def grasp_reachable(arm: str, xy: np.ndarray) -> bool:
    """Return whether ``arm`` can reach ``xy`` top-down (the reach rule)."""
    return REACH_M[0] <= arm_distance(arm, xy) <= REACH_M[1]


def reachable_arms(xy: np.ndarray) -> tuple[str, ...]:
    """Return the arms that can reach ``xy`` top-down."""
    return tuple(arm for arm in ARM_BASES_XY if grasp_reachable(arm, xy))


class PlacementFailed(Exception):
    """One placement attempt failed; the sampler starts the layout again."""


class Placer:
    """
    Place footprints one by one by rejection sampling, keeping them apart and reachable.

    :param rng: the layout's generator.
    :param placed: objects already in the layout (kept clear of).
    """

    TRIES = 400

    def __init__(self, rng: np.random.Generator, placed: tuple[ObjectSpec, ...] = ()) -> None:
        self.rng = rng
        self._discs: list[tuple[np.ndarray, float]] = [
            (o.xy, FOOTPRINT_RADIUS_M[o.kind]) for o in placed
        ]

    def free(self, xy: np.ndarray, radius: float) -> bool:
        """Return whether a disc at ``xy`` keeps ``MIN_GAP_M`` from every placed disc."""
        return all(
            np.linalg.norm(xy - other) >= radius + r + MIN_GAP_M for other, r in self._discs
        )

    def place(
        self,
        kind: str,
        reach: str = 'any',
        x_range: tuple[float, float] = WORK_X,
        y_range: tuple[float, float] = WORK_Y,
        near: tuple[np.ndarray, float, float] | None = None,
        accept=None,
    ) -> np.ndarray:
        """
        Sample a free footprint centre for ``kind``.

        :param reach: ``'any'`` (one arm reaches it), ``'left'``/``'right'`` (that arm does),
            ``'both'``, or ``'none'`` (no constraint, for distractors).
        :param near: optional (centre, min distance, max distance) the sample must keep to.
        :param accept: optional extra predicate on the sampled (x, y).
        :returns: the (x, y) centre, now reserved.
        :raises PlacementFailed: when no sample fits after ``TRIES`` tries.
        """
        radius = FOOTPRINT_RADIUS_M[kind]
        # Draw every candidate at once and keep the first that passes all tests, in order.
        points = np.stack([self.rng.uniform(*x_range, self.TRIES),
                           self.rng.uniform(*y_range, self.TRIES)], axis=1)
        reach_by = {}
        for arm, base in ARM_BASES_XY.items():
            dist = np.linalg.norm(points - np.asarray(base), axis=1)
            reach_by[arm] = (dist >= REACH_M[0]) & (dist <= REACH_M[1])
        ok = {
            'any': reach_by['left'] | reach_by['right'],
            'both': reach_by['left'] & reach_by['right'],
            'left': reach_by['left'],
            'right': reach_by['right'],
            'none': np.ones(self.TRIES, dtype=bool),
        }[reach]
        if near is not None:
            dist = np.linalg.norm(points - np.asarray(near[0]), axis=1)
            ok &= (dist >= near[1]) & (dist <= near[2])
        for other, r in self._discs:
            ok &= np.linalg.norm(points - other, axis=1) >= radius + r + MIN_GAP_M
        for xy in points[ok]:
            if accept is None or accept(xy):
                self._discs.append((xy, radius))
                return xy
        raise PlacementFailed(f'no free, reachable spot for a {kind} after {self.TRIES} tries')


def distinct_colours(rng: np.random.Generator, count: int, exclude: tuple[str, ...] = ()):
    """Return ``count`` different colour names from the vocabulary, avoiding ``exclude``."""
    names = [c for c in COLOURS if c not in exclude]
    picked = rng.choice(len(names), size=count, replace=False)
    return [names[int(i)] for i in picked]


def make_object(
    kind: str,
    colour: str,
    xy: np.ndarray,
    role: str,
    yaw_rad: float = 0.0,
    name: str | None = None,
) -> ObjectSpec:
    """Build the ObjectSpec of a standard ``kind`` at ``xy`` resting on the table."""
    sizes = {
        'block': (BLOCK_SIZE_M,) * 3,
        'bowl': BOWL_SIZE_M,
        'zone': ZONE_SIZE_M,
        'marker': MARKER_SIZE_M,
        'peg': PEG_SIZE_M,
        'hole': HOLE_SIZE_M,
        'button': BUTTON_SIZE_M,
        'cylinder': (0.04, 0.04, 0.06),
        'ball': (0.045, 0.045, 0.045),
    }
    size = sizes[kind]
    z = TABLE_Z + size[2] / 2.0 if kind in FREE_KINDS else TABLE_Z
    pose = (float(xy[0]), float(xy[1]), z) + yaw_quat(yaw_rad)
    return ObjectSpec(name or f'obj/{colour}_{kind}', kind, colour, size, pose, role)


def sample_appearance(rng: np.random.Generator) -> Appearance:
    """Sample a randomized appearance: a low-saturation table, a texture, a moved light."""
    grey = rng.uniform(0.30, 0.70)
    warm = rng.uniform(0.0, 0.07)
    table = (grey + warm, grey + warm * 0.4, grey - warm)
    return Appearance(
        randomized=True,
        table_rgb=tuple(float(min(max(c, 0.0), 1.0)) for c in table),
        table_texture=TEXTURES[int(rng.integers(len(TEXTURES)))],
        light_pos=(float(rng.uniform(-0.6, 0.6)), float(rng.uniform(-0.6, 0.3)),
                   float(rng.uniform(1.6, 2.6))),
        light_diffuse=float(rng.uniform(0.45, 0.8)),
    )


def sample_distractors(
    rng: np.random.Generator, placed: tuple[ObjectSpec, ...]
) -> tuple[ObjectSpec, ...]:
    """Add 1-3 distractors (cylinders, balls) in colours the task objects do not use."""
    used = tuple({o.colour for o in placed})
    placer = Placer(rng, placed)
    count = int(rng.integers(1, 4))
    colours = distinct_colours(rng, count, exclude=used)
    out = []
    for k, colour in enumerate(colours):
        kind = ('cylinder', 'ball')[int(rng.integers(2))]
        xy = placer.place(kind, reach='none', x_range=(-0.55, 0.55), y_range=(-0.32, 0.30))
        out.append(make_object(kind, colour, xy, 'distractor', name=f'obj/distractor_{k}'))
    return tuple(out)

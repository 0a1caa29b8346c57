"""
Fixtures for the station tests: compiled station models and a station per test.

``mujoco`` is imported inside the functions: ``pyrua_sim`` must be imported first, since
it picks the headless GL backend that MuJoCo reads once, at import.
"""

import numpy as np
from pyrua_sim.config import StationConfig
from pyrua_sim.model import station_spec
from pyrua_sim.station import MujocoStation
import pytest

CUBE_HALF_M = 0.025
CUBE_MASS_KG = 0.08


def add_cube(spec, name: str, xyz, rgba=(0.9, 0.1, 0.1, 1.0)) -> None:
    """Add a free 5 cm cube of 80 g at ``xyz`` (world, metres) to a ``mujoco.MjSpec``."""
    import mujoco

    body = spec.worldbody.add_body(name=name, pos=list(xyz))
    body.add_freejoint()
    body.add_geom(
        type=mujoco.mjtGeom.mjGEOM_BOX, size=[CUBE_HALF_M] * 3, rgba=list(rgba), mass=CUBE_MASS_KG
    )


@pytest.fixture(scope='session')
def bare_model():
    """Return the compiled bare station (two arms, table, cameras)."""
    return station_spec().compile()


@pytest.fixture(scope='session')
def cube_model():
    """Return the station with a red cube in front of the left arm and a blue one far right."""
    spec = station_spec()
    add_cube(spec, 'cube', (-0.28, -0.10, 0.765 + CUBE_HALF_M))
    add_cube(spec, 'far_cube', (0.40, 0.30, 0.765 + CUBE_HALF_M), rgba=(0.1, 0.2, 0.9, 1.0))
    return spec.compile()


@pytest.fixture
def station(bare_model):
    """Return a station on the bare model at ``home``; its renderers are closed afterwards."""
    with MujocoStation(bare_model) as sim:
        yield sim


@pytest.fixture
def cube_station(cube_model):
    """Return a station with two cubes at ``home``; closed afterwards."""
    with MujocoStation(cube_model, StationConfig(depth_enabled=True)) as sim:
        yield sim


@pytest.fixture
def rng() -> np.random.Generator:
    """Return a seeded generator."""
    return np.random.default_rng(7)

"""MuJoCo twin of the dual-arm ARX-X5 station, its tasks and their success checks."""

# Must run before anything imports mujoco: it picks the headless GL backend.
from . import rendering  # noqa: F401  isort: skip
from .config import StationConfig
from .errors import ConfigError, LayoutError, ModelError, RendererUnavailable, SimError
from .evaluator import SimEvaluator
from .layout import Layout
from .model import station_spec
from .scene import build_scene
from .station import MujocoStation
from .twin import load_twin, Twin

__all__ = [
    'ConfigError',
    'Layout',
    'LayoutError',
    'ModelError',
    'MujocoStation',
    'RendererUnavailable',
    'SimError',
    'SimEvaluator',
    'StationConfig',
    'Twin',
    'build_scene',
    'load_twin',
    'station_spec',
]

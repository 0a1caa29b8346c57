"""MuJoCo twin of the dual-arm ARX-X5 station, its tasks and their success checks."""

# Must run before anything imports mujoco: it picks the headless GL backend.
from . import rendering  # noqa: F401  isort: skip

__all__: list[str] = []

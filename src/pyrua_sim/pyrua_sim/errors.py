"""
Errors raised by the simulated twin for misuse (never for a physical outcome).

Hierarchy::

    SimError(Exception)
    +-- ConfigError(SimError, ValueError)   a config field is out of its bounds
    +-- ModelError(SimError)                the MJCF lacks a name the station needs
    +-- LayoutError(SimError, ValueError)   a layout cannot be built (seed, reach, overlap)
    +-- RendererUnavailable(SimError, RuntimeError)
                                            no offscreen OpenGL backend (EGL or OSMesa)
"""


class SimError(Exception):
    """Base class of every error raised by ``pyrua_sim``."""


class ConfigError(SimError, ValueError):
    """A config field is out of its bounds; the message names the field, value and bound."""


class ModelError(SimError):
    """A compiled model lacks a joint, actuator, camera or body the station needs."""


class LayoutError(SimError, ValueError):
    """A task layout cannot be built: seed or index out of range, unreachable, overlapping."""


class RendererUnavailable(SimError, RuntimeError):
    """No offscreen OpenGL backend works on this machine; the message names the package."""

"""Cell runtime, planners, prompt, accounting, recording, replay and the pyrua CLI."""

from .runtime import CellResult, CellRuntime

__all__ = [
    'CellResult',
    'CellRuntime',
]

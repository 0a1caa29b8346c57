"""
The cell runtime: persistent namespace, ``robo`` facade, guards and an isolated worker.

``CellRuntime`` is the entry point; ``InProcessTransport`` runs primitives as goals.
"""

from .cell_runtime import CellRuntime
from .results import CellResult, ImageObservation, PrimitiveCall
from .transport import GoalHandle, InProcessTransport, Transport

__all__ = [
    'CellResult',
    'CellRuntime',
    'GoalHandle',
    'ImageObservation',
    'InProcessTransport',
    'PrimitiveCall',
    'Transport',
]

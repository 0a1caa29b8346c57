"""
Replay of recorded episodes against their bag: no robot, no simulator.

``replay_episode`` runs a recorded episode's cells (or a person's edited copy, written by
``write_script``) again through the episode loop against ``BagPrimitives``, whose results
and camera frames come from the bag, and returns a ``DivergenceReport``: per cell, whether
the output equals the recorded output, and every call the recording has no result for.
"""

from .bag_primitives import bag_world, BagPrimitives, CallDivergence, ReplayDivergence
from .divergence import CellComparison, DivergenceReport
from .runner import replay_episode, ReplayOutcome, write_script

__all__ = [
    'BagPrimitives',
    'CallDivergence',
    'CellComparison',
    'DivergenceReport',
    'ReplayDivergence',
    'ReplayOutcome',
    'bag_world',
    'replay_episode',
    'write_script',
]

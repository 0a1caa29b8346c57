"""
Replay of recorded episodes against their bag: no robot, no simulator.

``replay_episode`` runs a recorded episode's cells (or a person's edited copy, written by
``write_script``) again through ``run_episode_spec`` on the ``'replay'`` world
(``open_recording``, registered as world ``'replay'``), whose ``BagPrimitives``
answer with the bag's results and camera frames, and returns a ``DivergenceReport``: per
cell, whether the output equals the recorded output, and every call the recording has no
result for.
"""

from .bag_primitives import bag_world, BagPrimitives, open_recording
from .divergence import CallDivergence, CellComparison, DivergenceReport, ReplayDivergence
from .runner import replay_episode, replay_spec, ReplayOutcome, write_script

__all__ = [
    'BagPrimitives',
    'CallDivergence',
    'CellComparison',
    'DivergenceReport',
    'ReplayDivergence',
    'ReplayOutcome',
    'bag_world',
    'open_recording',
    'replay_episode',
    'replay_spec',
    'write_script',
]

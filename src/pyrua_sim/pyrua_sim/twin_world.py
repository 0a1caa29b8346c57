"""
The twin as a ``World`` (``pyrua_primitives.world``): registered as ``TWIN``, world ``'twin'``.

The MuJoCo station of a task layout with its evaluator hooks; the agent builds the
primitive library, the recording and the task card over it.
"""

from __future__ import annotations

from pyrua_primitives.world import EvaluatorHooks, WorldEntry, WorldParts, WorldSpec


def open_twin(spec: WorldSpec) -> WorldParts:
    """
    Load ``spec``'s task layout on the embedded MuJoCo twin.

    :param spec: the episode (task, seed, layout, station settings, instruction).
    :returns: the world; ``handle`` is the ``Twin``, ``close`` closes it.
    """
    from .twin import load_twin

    twin = load_twin(spec.task, spec.seed, spec.layout, spec.station)
    try:
        evaluator = twin.evaluator
        evaluator.observe()
        hooks = EvaluatorHooks(success=evaluator.success, score=evaluator.score,
                               after_acting=evaluator.observe, unmet=evaluator.unmet)
        return WorldParts(instruction=spec.instruction or twin.instruction,
                          station=twin.station, hooks=hooks, handle=twin,
                          on_close=twin.close)
    except BaseException:
        twin.close()
        raise


def _owns(task: str) -> bool:
    from .tasks import TASKS

    return task in TASKS


TWIN = WorldEntry(name='twin', opener=open_twin, owns=_owns,
                  summary='the embedded MuJoCo twin of the ARX-X5 station')

"""
The agent node's episode, ROS-free: a world that fails to open ends it with a record.

``run_node_episode`` is what ``AgentNode.run`` calls. Opening the world talks to the
other nodes (the sim node's ``reset_task``, the first joint states and camera frames for
the task card); when that fails, the episode ends with end reason ``infra_error`` and the
reason, and its recording (when recording) holds the end record, instead of the node's
``main`` dying with a traceback and no record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..accounting import Ledger
from ..episode import EpisodeResult, EpisodeSpec, run_episode_spec
from ..recording.observer import EpisodeRecorder

Opener = Callable[[EpisodeSpec, EpisodeRecorder | None], Any]


def failed_open_result(spec: EpisodeSpec, error: BaseException, wall_s: float) -> EpisodeResult:
    """Return the record of an episode whose world did not open (end reason infra_error)."""
    detail = (f'the world did not open: {type(error).__name__}: {error}; start the '
              'station (or `ros2 launch pyrua_bringup sim.launch.py`) and run the episode '
              'again')
    return EpisodeResult(task=spec.task, seed=spec.seed, layout=spec.layout,
                         planner=spec.planner, end_reason='infra_error', end_detail=detail,
                         success=False, score=None, cells=0, wall_s=wall_s, ledger=Ledger(),
                         sandbox=spec.sandbox)


def record_failed_open(spec: EpisodeSpec, observer: EpisodeRecorder | None, error: Exception,
                       wall_s: float) -> EpisodeResult:
    """Return (and record, when recording) the ``infra_error`` end of a world that failed."""
    result = failed_open_result(spec, error, wall_s)
    episode_ended = getattr(observer, 'episode_ended', None)
    if episode_ended is not None:
        episode_ended(result)
    run_dir = getattr(observer, 'run_dir', None) if spec.record else None
    if run_dir is not None:
        from dataclasses import replace

        result = replace(result, run_dir=str(run_dir))
    return result


def run_node_episode(spec: EpisodeSpec, opener: Opener) -> EpisodeResult:
    """
    Run the agent node's episode; a world that fails to open is an ``infra_error`` record.

    :param spec: the episode (``episode_spec(AgentNodeConfig)``).
    :param opener: opens the world (``open_station`` over the node's ROS station).
    :returns: the episode record (``run_dir`` set when recorded).
    """
    return run_episode_spec(spec, opener=opener, open_failed=record_failed_open)

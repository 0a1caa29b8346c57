"""
One episode assembly: a frozen ``EpisodeSpec`` and ``run_episode_spec``, used by every path.

``pyrua run``, ``agent_node``, the evaluator and the trainer only parse their inputs into an
``EpisodeSpec`` and call ``run_episode_spec``; recording, accounting, guards and budgets are
therefore the same in every mode (DESIGN.md rule 6). How to call it::

    from pyrua_agent.episode import EpisodeSpec, run_episode_spec
    from pyrua_agent.llm import EndpointConfig

    spec = EpisodeSpec(task='pick_place', seed=0, layout=3, planner='code',
                       endpoint=EndpointConfig(base_url='http://127.0.0.1:8000/v1',
                                               model='Qwen/Qwen3-8B'),
                       runs_dir='runs/suite-1')
    result = run_episode_spec(spec)        # EpisodeResult; result.to_dict() is the record
    result.end_reason, result.success, result.score, result.ledger.totals(), result.run_dir

An evaluator builds one spec per (task, seed, layout, interface) with
``dataclasses.replace(base_spec, ...)``; specs are frozen, picklable and hold no secret (the
endpoint names the API key's environment variable), so they travel to worker processes.
A trainer passes ``on_cell`` to see each cell as it runs, and reads the conversation from
the recording (``result.run_dir``, ``pyrua_agent.recording.read_transcript``) or the
``EpisodeResult``. ``record=False`` writes nothing; ``world`` picks a registered world
(``pyrua_primitives.world.world_names()``); ``sandbox`` is the cell isolation mode.

Lower layers, for tests and tools: ``run_episode(world, planner)`` is the loop alone over an
``EpisodeWorld`` (primitives + hooks) that the caller built.
"""

from .assembly import (
    build_planner,
    bundled_program,
    planner_source,
    run_episode_spec,
    WorldOpener,
)
from .loop import EpisodeResult, EpisodeWorld, run_episode
from .recorded import run_recorded_episode
from .spec import CARD_CAMERAS, EpisodeSpec, SANDBOX_MODES
from .worlds import episode_world, open_spec_world, open_station, open_twin_world

__all__ = [
    'CARD_CAMERAS',
    'EpisodeResult',
    'EpisodeSpec',
    'EpisodeWorld',
    'SANDBOX_MODES',
    'WorldOpener',
    'build_planner',
    'bundled_program',
    'episode_world',
    'open_spec_world',
    'open_station',
    'open_twin_world',
    'planner_source',
    'run_episode',
    'run_episode_spec',
    'run_recorded_episode',
]

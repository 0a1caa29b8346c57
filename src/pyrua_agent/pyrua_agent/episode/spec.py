"""
``EpisodeSpec``: everything that decides one episode, as one frozen value.

The CLI, the ROS agent node, the evaluator and the trainer parse their inputs into a spec
and hand it to ``run_episode_spec``; nothing else about an episode is decided elsewhere.
The spec holds no secret: the endpoint names the environment variable of its API key.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
import math
from typing import Any

from pyrua_primitives.library import LibraryConfig
from pyrua_primitives.naming import unknown_name
from pyrua_primitives.station import CAMERAS

from ..budgets import BudgetConfig
from ..llm import EndpointConfig
from ..planners import needs_endpoint, needs_source, PLANNERS
from ..prompt import PromptVariant
from ..runtime.sandbox import SANDBOX_MODES

CARD_CAMERAS = ('head', 'left_wrist', 'right_wrist')


@dataclass(frozen=True, kw_only=True)
class EpisodeSpec:
    """
    One episode: world, task layout, primitives, planner and endpoint, budgets, recording.

    :param task: task name (``pyrua_sim.tasks.TASKS`` on the twin).
    :param seed: layout seed.
    :param layout: layout index.
    :param world: which world runs the task: ``'twin'`` (the embedded MuJoCo station),
        ``'replay'`` (a recorded episode's bag, see ``recording``) or another name
        registered in ``pyrua_primitives.world`` (its ``pyrua.worlds`` entry points).
    :param recording: the run folder (or its bag) a ``'replay'`` world answers from; set
        for that world only.
    :param instruction: the task instruction; '' takes the world's own.
    :param planner: one of ``pyrua_agent.planners.PLANNERS``.
    :param source: the file of a file planner (``# %%`` script, JSONL transcript); None for
        ``script`` runs the task's bundled reference program.
    :param endpoint: the OpenAI-compatible endpoint and model of an LLM planner.
    :param prices_file: a price table YAML over the packaged one (LLM planners' cost).
    :param prompt: which optional parts an LLM planner's prompt holds (all by default; the
        prompt ablation drops one).
    :param library: the primitive library settings (perception mode, motion, safety, VLA).
    :param station: the twin's station settings (None: defaults).
    :param budgets: LLM calls, cells, wall clock and context tokens.
    :param cell_timeout_s: optional per-cell limit, seconds (None: off).
    :param max_output_chars: per-cell output kept for the model.
    :param success_guard: stop a cell before an acting primitive once the task succeeded.
    :param record: write a rosbag2 bag and a transcript of the episode.
    :param runs_dir: parent folder of the episode's run folder.
    :param sandbox: cell isolation, one of ``SANDBOX_MODES``.
    :param card_cameras: cameras whose first images go on the task card (empty: every
        camera the world's station declares).
    """

    task: str
    seed: int = 0
    layout: int = 0
    world: str = 'twin'
    recording: str | None = None
    instruction: str = ''
    planner: str = 'script'
    source: str | None = None
    endpoint: EndpointConfig = field(default_factory=EndpointConfig)
    prices_file: str | None = None
    prompt: PromptVariant = field(default_factory=PromptVariant)
    library: LibraryConfig = field(default_factory=LibraryConfig)
    station: Any = None
    budgets: BudgetConfig = field(default_factory=BudgetConfig)
    cell_timeout_s: float | None = None
    max_output_chars: int = 8000
    success_guard: bool = True
    record: bool = True
    runs_dir: str = 'runs'
    sandbox: str = 'auto'
    card_cameras: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.task:
            raise ValueError("task '' vs a task name; e.g. 'pick_place'")
        if self.planner not in PLANNERS:
            raise ValueError(unknown_name('planner', self.planner, PLANNERS))
        if self.planner == 'replay' and not self.source:
            raise ValueError("planner 'replay' needs source=<run>/transcript.jsonl vs None")
        if self.source and not needs_source(self.planner):
            raise ValueError(f'source {self.source!r} vs planner {self.planner!r}, which '
                             'reads no file; drop source or pick script/replay')
        if (self.world == 'replay') != bool(self.recording):
            raise ValueError(f'recording {self.recording!r} with world {self.world!r} vs a run '
                             "folder exactly when world is 'replay'; e.g. world='replay', "
                             "recording='runs/<episode>'")
        if self.sandbox not in SANDBOX_MODES:
            raise ValueError(unknown_name('sandbox mode', self.sandbox, SANDBOX_MODES))
        if self.cell_timeout_s is not None and not (math.isfinite(self.cell_timeout_s)
                                                    and self.cell_timeout_s > 0):
            raise ValueError(f'cell_timeout_s {self.cell_timeout_s} vs > 0 s; use None to '
                             'switch the per-cell limit off')
        unknown = [c for c in self.card_cameras if c not in CAMERAS]
        if unknown:
            raise ValueError(f'card_cameras {unknown} vs cameras {list(CAMERAS)}')
        if self.prompt != PromptVariant() and not self.uses_endpoint:
            raise ValueError(f'prompt {self.prompt!r} vs planner {self.planner!r}, which asks '
                             'no model; drop prompt or pick an LLM planner')
        if self.record and not self.runs_dir:
            raise ValueError("runs_dir '' with record=True; give a folder or record=False")

    @property
    def uses_endpoint(self) -> bool:
        """Return True when the planner calls an LLM endpoint."""
        return needs_endpoint(self.planner)

    def to_record(self) -> dict[str, Any]:
        """Return the resolved settings as JSON-ready data (stored with the recording)."""
        data = asdict(self)
        if not self.uses_endpoint:
            data['endpoint'] = None
            data['prices_file'] = None
            data['prompt'] = None
        data['station'] = None if self.station is None else repr(self.station)
        return _plain(data)


def _plain(value: Any) -> Any:
    """Return ``value`` with tuples as lists and NaN as None (JSON)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    return value

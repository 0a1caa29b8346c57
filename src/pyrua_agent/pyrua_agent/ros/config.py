"""Settings of the agent node (ROS-free dataclass; one ROS parameter per leaf field)."""

from __future__ import annotations

from dataclasses import dataclass, field
import math

from pyrua_primitives.library import LibraryConfig
from pyrua_primitives.ros.config import RosStationConfig
from pyrua_primitives.station import CAMERAS

from ..budgets import BudgetConfig
from ..episode.spec import EpisodeSpec, SANDBOX_MODES
from ..llm import EndpointConfig
from ..planners import needs_endpoint, PLANNERS


@dataclass(frozen=True, kw_only=True)
class AgentNodeConfig:
    """
    Settings of ``agent_node``: the task, the planner and its endpoint, budgets, recording.

    :param task: task name (for the record and, with ``evaluator``, the twin's layout).
    :param instruction: the task instruction; '' takes it from the sim node's reset_task
        (needs ``evaluator``).
    :param seed: layout seed.
    :param layout: layout index.
    :param planner: one of ``pyrua_agent.planners.PLANNERS``.
    :param source: the ``# %%`` script or JSONL transcript (replay: also a run folder) of
        the script/replay planners.
    :param endpoint: the OpenAI-compatible endpoint and model of the LLM planners.
    :param budgets: LLM calls, cells, wall clock and context tokens.
    :param library: the local primitive library (reads: pose, joints, image, ...).
    :param station: where the local ROS station finds joints, cameras and TF.
    :param evaluator: use the sim node's reset_task and task_status services (the twin:
        success guard, success and score); False on a real station.
    :param record_dir: parent directory of the episode's recording; '' records nothing.
    :param prices_file: a price table (``pyrua_agent/prices.yaml`` shape) over the packaged
        one, for the LLM planners' cost; '' uses the packaged table.
    :param cell_timeout_s: optional per-cell limit, seconds (NaN: off).
    :param success_guard: stop a cell before an acting primitive once the task succeeded
        (needs ``evaluator``).
    :param sandbox: cell isolation, one of ``pyrua_agent.episode.SANDBOX_MODES``.
    :param card_cameras: cameras whose first images go on the task card.
    :param server_timeout_s: how long to wait for the primitives node's action servers.
    :param executor_threads: MultiThreadedExecutor threads.
    :param player_resume_service: a bag replay's player ``resume`` service
        (``/rosbag2_player/resume``); the agent calls it once every camera topic has
        ``player_subscribers`` subscribers, before the world opens. '' (live): none.
    :param player_subscribers: subscribers each camera topic needs before the bag plays.
    :param replay_bag: the bag a replay plays into this node's station (``replay.launch.py``
        ``bag:=``): every primitive that moves returns its recorded result (a changed call
        raises ReplayDivergence), the others run on the played topics
        (``pyrua_agent.replay.played_world``); needs ``station.frame_queue`` and
        ``evaluator: false``. '' (live): none.
    """

    task: str = 'pick_place'
    instruction: str = ''
    seed: int = 0
    layout: int = 0
    planner: str = 'code'
    source: str = ''
    endpoint: EndpointConfig = field(default_factory=EndpointConfig)
    budgets: BudgetConfig = field(default_factory=BudgetConfig)
    library: LibraryConfig = field(default_factory=LibraryConfig)
    station: RosStationConfig = field(default_factory=RosStationConfig)
    evaluator: bool = True
    record_dir: str = 'runs'
    prices_file: str = ''
    cell_timeout_s: float | None = None
    success_guard: bool = True
    sandbox: str = 'auto'
    card_cameras: tuple[str, ...] = CAMERAS
    server_timeout_s: float = 10.0
    executor_threads: int = 6
    player_resume_service: str = ''
    player_subscribers: int = 2
    replay_bag: str = ''

    def __post_init__(self) -> None:
        if self.planner not in PLANNERS:
            raise ValueError(f'planner {self.planner!r} vs one of {sorted(PLANNERS)}')
        if not self.instruction and not self.evaluator and needs_endpoint(self.planner):
            raise ValueError("instruction '' with evaluator False: a real station needs the "
                             'instruction as a parameter')
        unknown = [c for c in self.card_cameras if c not in CAMERAS]
        if unknown:
            raise ValueError(f'card_cameras {unknown} vs cameras {list(CAMERAS)}')
        if self.replay_bag and (self.evaluator or not self.station.frame_queue):
            raise ValueError(f'replay_bag {self.replay_bag!r} with evaluator '
                             f'{self.evaluator} and station.frame_queue '
                             f'{self.station.frame_queue} vs false and true: a replay has no '
                             'twin behind it and reads the played bag in order '
                             '(config/replay.yaml sets both)')
        if self.sandbox not in SANDBOX_MODES:
            raise ValueError(f'sandbox {self.sandbox!r} vs one of {SANDBOX_MODES}')


def episode_spec(config: AgentNodeConfig) -> EpisodeSpec:
    """Return the ``EpisodeSpec`` of the agent node's parameters (the one assembly's input)."""
    timeout = config.cell_timeout_s
    return EpisodeSpec(
        task=config.task, seed=config.seed, layout=config.layout, world='ros',
        instruction=config.instruction, planner=config.planner,
        source=config.source or None, endpoint=config.endpoint,
        prices_file=config.prices_file or None, library=config.library,
        station=config.station, budgets=config.budgets,
        cell_timeout_s=None if timeout is None or math.isnan(timeout) else timeout,
        success_guard=config.success_guard, record=bool(config.record_dir),
        runs_dir=config.record_dir or 'runs', sandbox=config.sandbox,
        card_cameras=config.card_cameras)

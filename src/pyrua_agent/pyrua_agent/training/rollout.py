"""
Rollouts: groups of ordinary code-agent episodes against the rollout engine.

Each episode is registered with the engine under its own id and seed, played through the
episode assembly with the code planner pointed at the engine's per-episode URL, and read back
as a ``Rollout``: its reward (1.0 if the task's success check passed, else 0.0) and the exact
tokens of every model call. An episode that ends with ``infra_error``, or whose world fails to
open or run, is an infrastructure failure: its whole group is dropped and played again with
fresh seeds (a group with a missing member would bias its advantages).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
import logging
from pathlib import Path
import random
import time
from typing import Any

from .config import TrainConfig
from .engine import RolloutEngine
from .policy import Completion
from ..errors import AgentError

_LOG = logging.getLogger(__name__)


class TrainingError(AgentError):
    """Training cannot go on (repeated infrastructure failures, a mismatched resume)."""


@dataclass(frozen=True, slots=True)
class Rollout:
    """
    One played episode, ready for the loss.

    :param episode_id: the id the engine recorded it under.
    :param instance: ``(task, layout)``.
    :param reward: 1.0 when the task's success check passed, else 0.0.
    :param end_reason: the episode's end reason (``'infra_error'`` for a failed world too).
    :param detail: the end detail.
    :param completions: every model call's tokens, in order.
    :param cells: cells run.
    :param wall_s: episode wall time.
    """

    episode_id: str
    instance: tuple[str, int]
    reward: float
    end_reason: str
    detail: str
    completions: tuple[Completion, ...]
    cells: int
    wall_s: float

    def __repr__(self) -> str:
        return (f'Rollout({self.episode_id}, {self.instance[0]}/l{self.instance[1]}, '
                f'reward={self.reward:g}, {self.end_reason}, {self.tokens} tokens)')

    @property
    def infra_failure(self) -> bool:
        """Return True when infrastructure, not the policy, ended the episode."""
        return self.end_reason == 'infra_error'

    @property
    def tokens(self) -> int:
        """Return the tokens the policy generated in the episode."""
        return sum(len(c.completion_ids) for c in self.completions)


def episode_seed(train_seed: int, episode_id: str) -> int:
    """Return the sampling seed of an episode: a function of the run seed and the id only."""
    return random.Random(f'{train_seed}/{episode_id}').getrandbits(62)


def episode_spec(config: TrainConfig, instance: tuple[str, int], endpoint_url: str,
                 runs_dir: str) -> Any:
    """
    Return the ``EpisodeSpec`` of one training episode: the evaluation episode, plus budgets.

    :param config: the run's settings.
    :param instance: ``(task, layout)``.
    :param endpoint_url: the engine's base URL of this episode.
    :param runs_dir: the recording folder (used when ``config.record``).
    """
    from ..budgets import BudgetConfig
    from ..episode import EpisodeSpec
    from ..llm import EndpointConfig

    task, layout = instance
    budgets = BudgetConfig(max_cells=config.max_cells, max_llm_calls=config.max_llm_calls,
                           wall_clock_s=config.wall_clock_s)
    endpoint = EndpointConfig(base_url=endpoint_url, model='policy',
                              max_retries=config.endpoint_retries, backoff_initial_s=0.5,
                              timeout_s=max(600.0, config.wall_clock_s))
    return EpisodeSpec(task=task, seed=config.seed, layout=layout, world=config.world,
                       planner='code', endpoint=endpoint, budgets=budgets,
                       record=config.record, runs_dir=runs_dir, sandbox=config.sandbox)


def play_rollout(engine: RolloutEngine, config: TrainConfig, instance: tuple[str, int],
                 episode_id: str, runs_dir: str) -> Rollout:
    """
    Play one training episode and return it with its tokens.

    :param engine: the rollout engine serving the policy.
    :param config: the run's settings (budgets, world, retries).
    :param instance: ``(task, layout)``.
    :param episode_id: unique id; also seeds the episode's sampling.
    :param runs_dir: the iteration's recording folder; the episode is recorded in its own
        sub-folder ``<runs_dir>/<episode_id>/`` (when ``config.record``), so episodes of one
        instance started in the same second never share a folder.
    :returns: the rollout; a world that fails to open or run gives an ``infra_error`` one.
    """
    from ..episode import run_episode_spec

    url = engine.open_episode(episode_id, episode_seed(config.train_seed, episode_id))
    started = time.monotonic()
    try:
        own_dir = str(Path(runs_dir) / episode_id)
        result = run_episode_spec(episode_spec(config, instance, url, own_dir))
        reason, detail = result.end_reason, result.end_detail
        success, cells = result.success, result.cells
    except Exception as exc:  # the world or the runtime broke: infrastructure, not policy
        _LOG.warning('episode %s failed outside the policy: %s: %s', episode_id,
                     type(exc).__name__, exc)
        reason, detail, success, cells = 'infra_error', f'{type(exc).__name__}: {exc}', False, 0
    finally:
        completions = engine.take(episode_id)
    return Rollout(episode_id=episode_id, instance=instance, reward=1.0 if success else 0.0,
                   end_reason=reason, detail=detail, completions=completions, cells=cells,
                   wall_s=time.monotonic() - started)


@dataclass(frozen=True, slots=True)
class GroupPlay:
    """
    The groups of one iteration: the kept ones (one per instance, in order) and the drops.

    :param groups: per instance, its ``rollouts_per_instance`` rollouts.
    :param dropped: groups dropped for an infrastructure failure (then played again).
    :param dropped_ids: the episode ids of the dropped groups' failed episodes.
    """

    groups: tuple[tuple[Rollout, ...], ...]
    dropped: int
    dropped_ids: tuple[str, ...]

    def __repr__(self) -> str:
        return f'GroupPlay({len(self.groups)} groups, {self.dropped} dropped)'


def play_groups(engine: RolloutEngine, config: TrainConfig, instances: Sequence[tuple[str, int]],
                iteration: int, runs_dir: str,
                play: Callable[..., Rollout] = play_rollout) -> GroupPlay:
    """
    Play one group per instance, in parallel; drop and replay groups with an infra failure.

    :param engine: the rollout engine.
    :param config: the run's settings.
    :param instances: this iteration's instances.
    :param iteration: the iteration number (part of every episode id).
    :param runs_dir: where episodes are recorded.
    :param play: plays one episode (``play_rollout``).
    :returns: the kept groups and the drop count.
    :raises TrainingError: when an instance's group fails ``max_group_attempts`` times.
    """
    attempts = [0] * len(instances)
    kept: dict[int, tuple[Rollout, ...]] = {}
    dropped: list[str] = []
    dropped_groups = 0
    with ThreadPoolExecutor(max_workers=config.parallel_episodes,
                            thread_name_prefix='rollout') as pool:
        pending = list(range(len(instances)))
        while pending:
            futures = {}
            for g in pending:
                ids = [f'it{iteration:04d}-g{g:02d}-a{attempts[g]}-r{r}'
                       for r in range(config.rollouts_per_instance)]
                futures[g] = [pool.submit(play, engine, config, instances[g], i, runs_dir)
                              for i in ids]
            again = []
            for g, group_futures in futures.items():
                group = tuple(f.result() for f in group_futures)
                attempts[g] += 1
                failed = [r for r in group if r.infra_failure]
                if not failed:
                    kept[g] = group
                    continue
                dropped_groups += 1
                dropped.extend(r.episode_id for r in failed)
                _LOG.warning('group %d (%s/l%d) lost %d episodes to infrastructure failures '
                             '(%s); dropped, playing it again', g, *instances[g], len(failed),
                             failed[0].detail)
                if attempts[g] >= config.max_group_attempts:
                    raise TrainingError(
                        f'instance {instances[g][0]}/l{instances[g][1]} lost episodes to '
                        f'infrastructure failures in {attempts[g]} groups vs '
                        f'max_group_attempts={config.max_group_attempts}; last: '
                        f'{failed[0].detail}. Check the world and the engine, then resume')
                again.append(g)
            pending = again
    return GroupPlay(tuple(kept[g] for g in range(len(instances))), dropped_groups,
                     tuple(dropped))

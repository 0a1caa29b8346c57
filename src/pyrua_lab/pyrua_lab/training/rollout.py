"""
Rollouts: groups of ordinary code-agent episodes against the rollout engine.

Each episode is registered with the engine under its own id and seed, played through the
episode assembly with the code planner pointed at the engine's per-episode URL (on the
evaluation executors: a local process pool or Ray), and read back as a ``Rollout``: its
reward (1.0 if the task's success check passed, else 0.0) and the exact tokens of every
model call. An episode that ends with ``infra_error``, or whose world fails to
open or run, is an infrastructure failure: its whole group is dropped and played again with
fresh seeds (a group with a missing member would bias its advantages).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import logging
from pathlib import Path
import random
import time
from typing import Any

from pyrua_agent.errors import AgentError

from .config import TrainConfig
from .engine import RolloutEngine
from .policy import Completion

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


def training_endpoint(config: TrainConfig, url: str) -> Any:
    """
    Return the endpoint a training episode's code planner reads the policy through.

    A ``local:`` model is read as evaluation reads it (``llm.local.local_endpoint``: the
    reply form, the prefilled first reply, the forced calls, text only), except that every
    call samples at the policy's temperature (the loss needs the sampling distribution); any
    other model as a plain endpoint in ``config.call_form``.

    :param config: the run's settings.
    :param url: the engine's base URL of the episode.
    """
    from dataclasses import replace

    from pyrua_agent.llm import EndpointConfig
    from pyrua_agent.llm.local import local_endpoint
    from pyrua_local.models import is_local

    endpoint = EndpointConfig(base_url=url, model=config.model if is_local(config.model)
                              else 'policy', call_form=config.call_form,
                              max_retries=config.endpoint_retries, backoff_initial_s=0.5,
                              timeout_s=max(600.0, config.wall_clock_s))
    if is_local(config.model):
        endpoint = replace(local_endpoint(endpoint, url), model='policy',
                           max_retries=config.endpoint_retries, repeat_temperature=None,
                           max_output_tokens=config.max_new_tokens)
    elif endpoint.code_form == 'fence':
        endpoint = replace(endpoint, continues_final_message=True)
    return endpoint


def episode_spec(config: TrainConfig, instance: tuple[str, int], endpoint_url: str,
                 runs_dir: str) -> Any:
    """
    Return the ``EpisodeSpec`` of one training episode: the evaluation episode, plus budgets.

    :param config: the run's settings.
    :param instance: ``(task, layout)``.
    :param endpoint_url: the engine's base URL of this episode.
    :param runs_dir: the recording folder (used when ``config.record``).
    """
    from pyrua_agent.budgets import BudgetConfig
    from pyrua_agent.episode import EpisodeSpec

    task, layout = instance
    budgets = BudgetConfig(max_cells=config.max_cells, max_llm_calls=config.max_llm_calls,
                           wall_clock_s=config.wall_clock_s)
    return EpisodeSpec(task=task, seed=config.seed, layout=layout, world=config.world,
                       planner='code', endpoint=training_endpoint(config, endpoint_url),
                       budgets=budgets,
                       record=config.record, runs_dir=runs_dir, sandbox=config.sandbox)


@dataclass(frozen=True)
class RolloutJob:
    """
    One training episode for an evaluation executor (local process pool or Ray).

    Plain, picklable data: the worker runs ``spec`` through ``run_episode_spec``; the tokens
    stay with the rollout engine on this host, keyed by ``episode_id``.

    :param episode_id: the engine's episode id.
    :param spec: the episode (its endpoint is the engine's URL of this episode).
    :param interface: the code interface, as the executors' failure records read it.
    """

    episode_id: str
    spec: Any
    interface: Any

    @property
    def task(self) -> str:
        """Return the episode's task."""
        return self.spec.task

    @property
    def seed(self) -> int:
        """Return the episode's layout seed."""
        return self.spec.seed

    @property
    def layout(self) -> int:
        """Return the episode's layout index."""
        return self.spec.layout

    def describe(self) -> dict[str, Any]:
        """Return the keys every record of this episode carries besides the result's."""
        return {'episode_id': self.episode_id}


def rollout_job(config: TrainConfig, instance: tuple[str, int], episode_id: str, url: str,
                runs_dir: str) -> RolloutJob:
    """
    Return the job of one training episode, recorded in ``<runs_dir>/<episode_id>/``.

    Each episode gets its own recording folder, so episodes of one instance started in the
    same second never share one.
    """
    from ..evaluation.spec import InterfaceSpec

    spec = episode_spec(config, instance, url, str(Path(runs_dir) / episode_id))
    interface = InterfaceSpec(name='code', planner='code',
                              endpoint={'base_url': url, 'model': spec.endpoint.model})
    return RolloutJob(episode_id=episode_id, spec=spec, interface=interface)


def run_rollout_job(job: RolloutJob) -> dict[str, Any]:
    """
    Play one training episode (in an executor's worker); return its outcome record.

    :param job: the episode.
    :returns: ``episode_id``, ``end_reason``, ``end_detail``, ``success``, ``cells`` and
        ``wall_s``; a world that fails to open or run gives an ``infra_error`` record.
    """
    from pyrua_agent.episode import run_episode_spec

    started = time.monotonic()
    try:
        result = run_episode_spec(job.spec)
    except Exception as exc:  # the world or the runtime broke: infrastructure, not policy
        _LOG.warning('episode %s failed outside the policy: %s: %s', job.episode_id,
                     type(exc).__name__, exc)
        return {'episode_id': job.episode_id, 'end_reason': 'infra_error',
                'end_detail': f'{type(exc).__name__}: {exc}', 'success': False, 'cells': 0,
                'wall_s': time.monotonic() - started}
    return {'episode_id': job.episode_id, 'end_reason': result.end_reason,
            'end_detail': result.end_detail, 'success': result.success, 'cells': result.cells,
            'wall_s': result.wall_s}


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
                iteration: int, runs_dir: str) -> GroupPlay:
    """
    Play one group per instance, in parallel; drop and replay groups with an infra failure.

    The episodes run on the evaluation executors (``config.executor``: a local pool of
    ``parallel_episodes`` processes, or a local Ray), which reach the engine over HTTP.

    :param engine: the rollout engine.
    :param config: the run's settings.
    :param instances: this iteration's instances.
    :param iteration: the iteration number (part of every episode id).
    :param runs_dir: where episodes are recorded.
    :returns: the kept groups and the drop count.
    :raises TrainingError: when an instance's group fails ``max_group_attempts`` times.
    """
    from ..evaluation.executors import make_executor

    executor = make_executor(config.executor, workers=config.parallel_episodes)
    attempts = [0] * len(instances)
    kept: dict[int, tuple[Rollout, ...]] = {}
    dropped: list[str] = []
    dropped_groups = 0
    pending = list(range(len(instances)))
    while pending:
        jobs, members = [], {}
        for g in pending:
            members[g] = [f'it{iteration:04d}-g{g:02d}-a{attempts[g]}-r{r}'
                          for r in range(config.rollouts_per_instance)]
            for episode_id in members[g]:
                url = engine.open_episode(episode_id,
                                          episode_seed(config.train_seed, episode_id))
                jobs.append(rollout_job(config, instances[g], episode_id, url, runs_dir))
        records: dict[str, dict[str, Any]] = {}

        def handle(job: RolloutJob, record: dict[str, Any]) -> None:
            records[job.episode_id] = record

        try:
            executor.run(jobs, run_rollout_job, handle)
        finally:
            completions = {job.episode_id: engine.take(job.episode_id) for job in jobs}
        again = []
        for g in pending:
            group = tuple(_rollout(records[i], instances[g], completions[i])
                          for i in members[g])
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


def _rollout(record: dict[str, Any], instance: tuple[str, int],
             completions: tuple[Completion, ...]) -> Rollout:
    return Rollout(episode_id=record['episode_id'], instance=instance,
                   reward=1.0 if record['success'] else 0.0, end_reason=record['end_reason'],
                   detail=record['end_detail'], completions=completions,
                   cells=record['cells'], wall_s=record['wall_s'])

"""
The GRPO loop: draw instances, play groups, normalise rewards, take optimizer steps, save.

One iteration: draw ``instances_per_iteration`` instances (seeded by the run seed and the
iteration), play ``rollouts_per_instance`` episodes of each through the rollout engine,
compute each episode's group-normalised advantage, shuffle the episodes (seeded) and split
them into ``optimizer_steps`` equal batches, and for each batch accumulate the clipped loss
over every generated token (``loss.clipped_loss``) and take one Adam step. Then write a
checkpoint (weights, tokenizer, optimizer state) and one line of ``train_log.jsonl``.

Every random choice is a function of ``train_seed``, the iteration and the episode id, so a
run resumed from a checkpoint continues exactly as the uninterrupted run would have.

Layout of the output folder::

    OUT/config.yaml            the resolved settings (a resume must match them)
    OUT/train_log.jsonl        one line per iteration
    OUT/episodes.jsonl         one line per played episode (dropped groups included)
    OUT/checkpoints/iter-NNNN/ model + tokenizer (a model folder) + optimizer.pt + state.json
                               (the iteration, and the GGUF the run started from, if any:
                               ``pyrua export CKPT --format gguf`` copies its tokenizer);
                               a LoRA run also keeps adapter/ (what a resume trains on) and
                               saves the model with the adapters merged in
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
import json
import logging
from pathlib import Path
import random
import shutil
import time
from typing import Any

from .config import TrainConfig
from .engine import RolloutEngine
from .loss import clipped_loss, group_advantages
from .model_source import resolve_source
from .policy import LocalPolicy, token_logprobs
from .rollout import play_groups, Rollout, TrainingError

_LOG = logging.getLogger(__name__)
CHECKPOINT_PREFIX = 'iter-'


@dataclass(frozen=True, slots=True)
class StepStats:
    """
    One optimizer step's loss and token counts.

    :param loss: the step's loss ``L`` (the mean clipped term over its generated tokens).
    :param tokens: generated tokens in the step (``N``).
    :param clipped_low: tokens clipped below.
    :param clipped_high: tokens clipped above.
    """

    loss: float
    tokens: int
    clipped_low: int
    clipped_high: int

    def __repr__(self) -> str:
        return (f'StepStats(loss={self.loss:.4g}, {self.tokens} tokens, clipped '
                f'{self.clipped_low} low / {self.clipped_high} high)')


def accumulate_step(policy: LocalPolicy, batch: Sequence[tuple[Rollout, float]], *,
                    clip_low: float, clip_high: float,
                    system_gradient: bool = True) -> StepStats:
    """
    Accumulate the gradient of one optimizer step's loss over its episodes.

    Each model call of each episode is one forward pass over its exact prompt and generated
    tokens; only the generated tokens' log-probs enter the loss. Episodes with advantage 0
    add nothing to the loss but count in ``N``; they are not run through the model.

    :param policy: the policy; gradients accumulate in its parameters.
    :param batch: ``(rollout, advantage)`` pairs.
    :param clip_low: lower clip of the ratio (``1 - clip_low``).
    :param clip_high: upper clip of the ratio (``1 + clip_high``).
    :param system_gradient: False holds each call's system message constant
        (``token_logprobs(constant_prefix=...)``: the same loss, a shorter backward pass).
    :returns: the step's loss and counts.
    """
    import torch

    tokens = sum(rollout.tokens for rollout, _ in batch)
    total, low, high = 0.0, 0, 0
    if tokens == 0:
        return StepStats(0.0, 0, 0, 0)
    for rollout, advantage in batch:
        if advantage == 0.0:
            continue
        for completion in rollout.completions:
            if not completion.completion_ids:
                continue
            new = token_logprobs(policy, completion.prompt_ids, completion.completion_ids,
                                 constant_prefix=0 if system_gradient else completion.prefix)
            old = torch.tensor(completion.logprobs, dtype=torch.float32, device=new.device)
            terms = clipped_loss(new, old, advantage, clip_low=clip_low, clip_high=clip_high,
                                 token_count=tokens)
            terms.loss.backward()
            total += float(terms.loss.detach())
            low += terms.clipped_low
            high += terms.clipped_high
    return StepStats(total, tokens, low, high)


def checkpoints(out: Path) -> list[Path]:
    """Return the run's iteration checkpoints, oldest first."""
    folder = out / 'checkpoints'
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if p.name.startswith(CHECKPOINT_PREFIX)
             and (p / 'state.json').is_file()]
    return sorted(found, key=lambda p: int(p.name[len(CHECKPOINT_PREFIX):]))


class GrpoTrainer:
    """
    Train ``config.model`` with GRPO on code-agent episodes; write everything under ``out``.

    :param config: the run's settings.
    :param out: the output folder.
    :param resume: continue the run in ``out`` from its latest checkpoint.
    :param policy: the policy of a new run, already loaded (default: loaded from
        ``config.model``); a resumed run always loads its checkpoint.
    :param on_iteration: called with each iteration's log record.
    :raises TrainingError: when ``out`` already holds a run and ``resume`` is False, or
        holds a run with other settings, or ``policy`` is given for a resumed run.
    """

    def __init__(self, config: TrainConfig, out: str | Path, *, resume: bool = False,
                 policy: LocalPolicy | None = None,
                 on_iteration: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.config = config
        self.out = Path(out)
        self.on_iteration = on_iteration
        self.start_iteration = self._prepare(resume)
        checkpoint = checkpoints(self.out)[-1] if self.start_iteration > 1 else None
        if checkpoint is not None and policy is not None:
            raise TrainingError(f'a policy object vs a resumed run at {checkpoint}; a resumed '
                                'run loads its checkpoint, pass no policy')
        if policy is None:
            policy = self._load_policy(checkpoint, config)
        elif bool(policy.lora_rank) != config.uses_lora:
            raise TrainingError(f'a policy with lora_rank {policy.lora_rank} vs lora_rank '
                                f'{config.lora_rank} in the settings; load it with the same')
        self.policy = policy
        # The GGUF the run started from: `pyrua export --format gguf` copies its tokenizer.
        source = resolve_source(config.model) if checkpoint is not None else self.policy.source
        self.base_gguf = str(source.path) if source.gguf_file else None
        self.optimizer = self._make_optimizer(checkpoint)
        self._save_config()

    def __repr__(self) -> str:
        return (f'GrpoTrainer({self.out}, iteration {self.start_iteration}/'
                f'{self.config.iterations}, {self.policy!r})')

    def _prepare(self, resume: bool) -> int:
        """
        Check ``out`` against this run; return the first iteration to play.

        A folder whose run has no checkpoint yet (it failed before its first iteration
        finished) holds nothing to continue: a rerun, with or without ``resume``, starts
        it afresh with the new settings.
        """
        import yaml

        saved = self.out / 'config.yaml'
        found = checkpoints(self.out)
        if saved.is_file() and found:
            if not resume:
                raise TrainingError(f'{self.out} already holds a training run vs a new run; '
                                    'pass --resume to continue it, or choose another --out')
            before = yaml.safe_load(saved.read_text())
            now = self.config.to_dict()
            changed = sorted(k for k in now if k != 'iterations' and before.get(k) != now[k])
            if changed:
                raise TrainingError(
                    f'resume of {self.out}: settings {changed} differ from the saved run '
                    f'({", ".join(f"{k}: {before.get(k)!r} -> {now[k]!r}" for k in changed)});'
                    ' only iterations may change on resume')
        if not found:
            self._truncate_logs(0)
            return 1
        done = json.loads((found[-1] / 'state.json').read_text())['iteration']
        self._truncate_logs(done)
        return done + 1

    def _save_config(self) -> None:
        """Write ``config.yaml`` once the policy and optimizer are ready (the run starts)."""
        import yaml

        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / 'config.yaml').write_text(yaml.safe_dump(self.config.to_dict(),
                                                             sort_keys=True))

    def _truncate_logs(self, done: int) -> None:
        """Drop log lines written after the last checkpoint (a crash between the two)."""
        for name, key in (('train_log.jsonl', 'iteration'), ('episodes.jsonl', 'iteration')):
            path = self.out / name
            if path.is_file():
                lines = [line for line in path.read_text().splitlines()
                         if line and json.loads(line)[key] <= done]
                path.write_text(''.join(f'{line}\n' for line in lines))

    @staticmethod
    def _load_policy(checkpoint: Path | None, cfg: TrainConfig) -> LocalPolicy:
        """Load the policy: the model (and new adapters), or a checkpoint to go on from."""
        source: str | Path = cfg.model
        adapter = None
        if checkpoint is not None and cfg.uses_lora:
            adapter = checkpoint / 'adapter'  # the frozen weights are the model's own
        elif checkpoint is not None:
            source = checkpoint
        return LocalPolicy(source, device=cfg.device, dtype=cfg.dtype,
                           compute_dtype=cfg.compute_dtype, temperature=cfg.temperature,
                           gradient_checkpointing=cfg.gradient_checkpointing,
                           lora_rank=cfg.lora_rank, lora_alpha=cfg.lora_alpha, adapter=adapter)

    def _make_optimizer(self, checkpoint: Path | None) -> Any:
        import torch

        optimizer = torch.optim.Adam(self.policy.parameters(),
                                     lr=self.config.learning_rate,
                                     betas=self.config.adam_betas, eps=1e-8, weight_decay=0.0)
        if checkpoint is not None:
            optimizer.load_state_dict(torch.load(checkpoint / 'optimizer.pt',
                                                 map_location=self.policy.device))
        return optimizer

    def run(self) -> list[dict[str, Any]]:
        """
        Run the remaining iterations; return their log records.

        :raises TrainingError: when a group keeps losing episodes to infrastructure failures.
        """
        records = []
        with self._engine() as engine:
            for iteration in range(self.start_iteration, self.config.iterations + 1):
                record = self.iteration(engine, iteration)
                records.append(record)
                if self.on_iteration is not None:
                    self.on_iteration(record)
        return records

    def _engine(self) -> RolloutEngine:
        """Return the config's rollout engine, its weights those of the policy now."""
        cfg = self.config
        if cfg.engine == 'transformers':
            return RolloutEngine(self.policy, max_new_tokens=cfg.max_new_tokens)
        from .sglang_engine import SglangRolloutEngine

        if self.policy.device.type != 'cuda':
            raise TrainingError(f"engine 'sglang' needs the policy on CUDA vs "
                                f'{self.policy.device}; on a CPU use engine: transformers')
        found = checkpoints(self.out)
        start = found[-1] if found else self.policy.source.path
        if not (start / 'config.json').is_file():
            raise TrainingError(f"engine 'sglang' loads Hugging Face folders vs {start}; "
                                'give model: a model folder (a GGUF trains with engine: '
                                'transformers)')
        engine = SglangRolloutEngine(self.policy, server_url=cfg.engine_url,
                                     max_new_tokens=cfg.max_new_tokens)
        try:
            engine.sync_weights(start, self.start_iteration - 1)
        except BaseException:
            engine.close()
            raise
        return engine

    def draw(self, iteration: int) -> list[tuple[str, int]]:
        """Return the instances of ``iteration`` (a function of the seed and the number)."""
        rng = random.Random(f'{self.config.train_seed}/draw/{iteration}')
        return rng.sample(self.config.instance_keys(), self.config.instances_per_iteration)

    def iteration(self, engine: RolloutEngine, iteration: int) -> dict[str, Any]:
        """Play, optimise, checkpoint and log one iteration; return its log record."""
        cfg = self.config
        instances = self.draw(iteration)
        runs_dir = str(self.out / 'episodes' / f'{CHECKPOINT_PREFIX}{iteration:04d}')
        started = time.monotonic()
        play = play_groups(engine, cfg, instances, iteration, runs_dir)
        episode_s = time.monotonic() - started
        samples: list[tuple[Rollout, float]] = []
        for group in play.groups:
            advantages = group_advantages([r.reward for r in group])
            samples.extend(zip(group, advantages, strict=True))
        random.Random(f'{cfg.train_seed}/order/{iteration}').shuffle(samples)
        size = len(samples) // cfg.optimizer_steps
        started = time.monotonic()
        steps = []
        self.policy.model.train()
        try:
            for start in range(0, len(samples), size):
                self.optimizer.zero_grad(set_to_none=True)
                steps.append(accumulate_step(self.policy, samples[start:start + size],
                                             clip_low=cfg.clip_low, clip_high=cfg.clip_high,
                                             system_gradient=cfg.system_gradient))
                if cfg.max_grad_norm > 0:
                    import torch

                    torch.nn.utils.clip_grad_norm_(self.policy.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
        finally:
            self.optimizer.zero_grad(set_to_none=True)
            self.policy.model.eval()
        optimizer_s = time.monotonic() - started
        engine.sync_weights(self._checkpoint(iteration), iteration)
        record = self._record(iteration, play, steps, episode_s, optimizer_s)
        self._append('episodes.jsonl', *self._episode_lines(iteration, play))
        self._append('train_log.jsonl', record)
        return record

    def _record(self, iteration: int, play: Any, steps: Sequence[StepStats],
                episode_s: float, optimizer_s: float) -> dict[str, Any]:
        rollouts = [r for group in play.groups for r in group]
        tokens = sum(s.tokens for s in steps)
        per_instance = {f'{g[0].instance[0]}/l{g[0].instance[1]}':
                        sum(r.reward for r in g) / len(g) for g in play.groups}
        return {
            'iteration': iteration,
            'mean_reward': sum(r.reward for r in rollouts) / len(rollouts),
            'success_per_instance': per_instance,
            'groups_dropped': play.dropped,
            'loss': sum(s.loss for s in steps) / len(steps),
            'clip_low_fraction': sum(s.clipped_low for s in steps) / max(tokens, 1),
            'clip_high_fraction': sum(s.clipped_high for s in steps) / max(tokens, 1),
            'tokens_generated': sum(r.tokens for r in rollouts),
            'episodes': len(rollouts),
            'end_reasons': dict(sorted(Counter(r.end_reason for r in rollouts).items())),
            'episode_s': round(episode_s, 3),
            'optimizer_s': round(optimizer_s, 3),
            'steps': [{'loss': s.loss, 'tokens': s.tokens} for s in steps],
        }

    def _episode_lines(self, iteration: int, play: Any) -> list[dict[str, Any]]:
        return [{'iteration': iteration, 'episode': r.episode_id, 'task': r.instance[0],
                 'layout': r.instance[1], 'reward': r.reward, 'end_reason': r.end_reason,
                 'cells': r.cells, 'calls': len(r.completions), 'tokens': r.tokens,
                 'wall_s': round(r.wall_s, 3)}
                for group in play.groups for r in group]

    def _append(self, name: str, *records: dict[str, Any]) -> None:
        with (self.out / name).open('a') as stream:
            for record in records:
                stream.write(json.dumps(record) + '\n')

    def _checkpoint(self, iteration: int) -> Path:
        import torch

        folder = self.out / 'checkpoints' / f'{CHECKPOINT_PREFIX}{iteration:04d}'
        partial = folder.with_name(folder.name + '.partial')
        if partial.exists():
            shutil.rmtree(partial)
        self.policy.merged_model().save_pretrained(partial)
        if self.policy.lora_rank:
            self.policy.model.save_pretrained(partial / 'adapter')
        self.policy.tokenizer.save_pretrained(partial)
        torch.save(self.optimizer.state_dict(), partial / 'optimizer.pt')
        state = {'iteration': iteration, 'tokenizer_gguf': self.base_gguf}
        (partial / 'state.json').write_text(json.dumps(state) + '\n')
        if folder.exists():
            shutil.rmtree(folder)
        partial.rename(folder)
        for old in checkpoints(self.out)[:-self.config.keep_checkpoints]:
            shutil.rmtree(old)
        return folder


def train(config: TrainConfig, out: str | Path, *, resume: bool = False,
          on_iteration: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """
    Run GRPO on code-agent episodes as ``config`` says; write the run under ``out``.

    :param config: the run's settings.
    :param out: the output folder (config, logs, checkpoints).
    :param resume: continue the run in ``out`` from its latest checkpoint.
    :param on_iteration: called with each iteration's log record.
    :returns: the log records of the iterations run now.
    :raises TrainingError: for a mismatched resume or repeated infrastructure failures.
    """
    trainer = GrpoTrainer(config, out, resume=resume, on_iteration=on_iteration)
    if trainer.start_iteration > config.iterations:
        raise TrainingError(f'{out} is already at iteration {trainer.start_iteration - 1} vs '
                            f'iterations={config.iterations}; raise iterations to go on')
    return trainer.run()

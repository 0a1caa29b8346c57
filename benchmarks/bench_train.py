"""
Throughput of GRPO rollouts: episodes per hour and generated tokens per second.

Plays training episodes exactly as ``pyrua train`` does (``rollout.play_groups``: the code
planner over the real ``openai`` client against the rollout engine, the sandboxed cell
worker, recording on) with a tiny random policy built offline, and reports:

- the engine's generation rate (generated tokens / seconds spent sampling);
- episodes per hour of the toy world and of the MuJoCo twin, with 1 and 4 episodes in
  parallel;
- one optimizer step's time over the toy episodes.

A random policy's episodes are short (it rarely writes a second useful cell), so the episode
rates bound the per-episode overhead (worker, world, HTTP, recording) rather than predict a
trained model's episode length.

Run: ``.venv/bin/python benchmarks/bench_train.py`` (about 1 min on 2 cores). Options:
``--hidden 256 --layers 4`` for a larger random policy, ``--model DIR`` for any local model
folder (e.g. a 4B model on a GPU), ``--episodes N`` per measurement.
"""

from __future__ import annotations

import argparse
from pathlib import Path
import tempfile
import time

from pyrua_agent.training import TrainConfig
from pyrua_agent.training.engine import RolloutEngine
from pyrua_agent.training.loss import group_advantages
from pyrua_agent.training.policy import LocalPolicy
from pyrua_agent.training.rollout import play_groups
from pyrua_agent.training.tiny import build_tiny_policy
from pyrua_agent.training.toy import TOY_CELLS
from pyrua_agent.training.trainer import accumulate_step


def _measure(engine: RolloutEngine, config: TrainConfig, episodes: int, out: Path,
             label: str) -> list:
    groups = episodes // config.rollouts_per_instance
    instances = [config.instance_keys()[i % len(config.instance_keys())] for i in range(groups)]
    tokens0, gen0 = engine.generated_tokens, engine.generate_s
    started = time.monotonic()
    play = play_groups(engine, config, instances, iteration=hash(label) % 1000,
                       runs_dir=str(out / label))
    wall = time.monotonic() - started
    rollouts = [r for group in play.groups for r in group]
    tokens = engine.generated_tokens - tokens0
    gen_s = engine.generate_s - gen0
    calls = sum(len(r.completions) for r in rollouts)
    print(f'{label:<28} {len(rollouts):>4} episodes in {wall:6.1f} s = '
          f'{3600 * len(rollouts) / wall:7.0f} episodes/h; {calls / len(rollouts):.1f} calls and '
          f'{tokens / len(rollouts):.1f} tokens per episode; generation {tokens / gen_s:6.0f} '
          f'tokens/s ({100 * gen_s / wall:.0f}% of wall)')
    return rollouts


def main() -> None:
    """Run the measurements and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--model', type=Path, default=None, help='local model folder')
    parser.add_argument('--hidden', type=int, default=32, help='tiny policy width')
    parser.add_argument('--layers', type=int, default=2, help='tiny policy layers')
    parser.add_argument('--episodes', type=int, default=16, help='episodes per measurement')
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix='bench_train_'))
    model = args.model or build_tiny_policy(work / 'model', TOY_CELLS, hidden_size=args.hidden,
                                            layers=args.layers)
    policy = LocalPolicy(model)
    print(f'policy: {policy!r}')
    base = {'model': str(model), 'rollouts_per_instance': 4, 'max_new_tokens': 8,
            'max_cells': 3, 'max_llm_calls': 3}
    toy = {**base, 'world': 'toy', 'tasks': ['press_red'], 'layouts': '0-3'}
    twin = {**base, 'world': 'twin', 'tasks': ['pick_place', 'stack_blocks'], 'layouts': '0-1',
            'max_cells': 2, 'max_llm_calls': 2}
    with RolloutEngine(policy, max_new_tokens=8) as engine:
        started = time.monotonic()
        completion = policy.sample(policy.render([{'role': 'user', 'content': 'x'}]), 64,
                                   policy.generator(0))
        print(f'{"engine sampling, 1 call":<28} {len(completion.completion_ids)} tokens in '
              f'{time.monotonic() - started:.3f} s (stops at the end-of-turn token)')
        rollouts = []
        for parallel in (1, 4):
            config = TrainConfig(**toy, instances_per_iteration=4, parallel_episodes=parallel)
            rollouts = _measure(engine, config, args.episodes, work,
                                f'toy, {parallel} in parallel')
        for parallel in (1, 4):
            config = TrainConfig(**twin, instances_per_iteration=4, parallel_episodes=parallel)
            _measure(engine, config, max(4, args.episodes // 2), work,
                     f'twin, {parallel} in parallel')
    batch = []
    for start in range(0, len(rollouts), 4):
        group = rollouts[start:start + 4]
        batch.extend(zip(group, group_advantages([r.reward for r in group]), strict=True))
    policy.model.train()
    started = time.monotonic()
    stats = accumulate_step(policy, batch, clip_low=0.2, clip_high=0.28)
    print(f'{"optimizer step (backward)":<28} {len(batch)} episodes, {stats.tokens} tokens in '
          f'{time.monotonic() - started:.2f} s')


if __name__ == '__main__':
    main()

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

``--step --model local:qwen2.5-coder-0.5b`` (or a ``.gguf`` / model folder) measures a real
model instead: load time, one sampled completion on the code agent's real first prompt
(pick_place: system prompt + task card), computed whole and then again with the system
message's cache kept (what the rollout engine does from an episode's second request on), and
one optimizer step (forward + backward of the clipped loss over ``--calls`` model calls, then
Adam) with its wall time and the process's peak memory (peak RSS on CPU;
``torch.cuda.max_memory_allocated`` on CUDA). ``--lora-rank 16`` trains LoRA adapters instead
of every weight; ``--constant-system`` holds the system message constant in the loss
(``system_gradient: false``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
import tempfile
import time

from pyrua_lab.training import TrainConfig
from pyrua_lab.training.engine import RolloutEngine
from pyrua_lab.training.loss import group_advantages
from pyrua_lab.training.policy import LocalPolicy
from pyrua_lab.training.rollout import play_groups
from pyrua_lab.training.tiny import build_tiny_policy
from pyrua_lab.training.toy import TOY_CELLS
from pyrua_lab.training.trainer import accumulate_step


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


def _first_prompt(policy: LocalPolicy) -> tuple[list[int], list[str], int]:
    """Return the code agent's first prompt on pick_place, and the bundled program's cells."""
    from pyrua_agent.episode import bundled_program
    from pyrua_agent.llm import python_tool
    from pyrua_agent.planners.code_agent import PYTHON_TOOL_DESCRIPTION
    from pyrua_agent.planners.percent import read_percent_file
    from pyrua_agent.planners import interface_prompt
    from pyrua_agent.prompt import code_api_reference
    from pyrua_agent.prompt.parts import task_card_text
    from pyrua_agent.episode import open_twin_world

    world, twin = open_twin_world('pick_place', 0, 0)
    try:
        system = interface_prompt('code', code_api_reference(world.primitives),
                                  world.card.station_facts)
        card = task_card_text(world.card)
    finally:
        twin.close()
    messages = [{'role': 'system', 'content': system}, {'role': 'user', 'content': card}]
    tools = [python_tool(PYTHON_TOOL_DESCRIPTION)]
    prompt = policy.render(messages, tools)
    cells = [cell.code for cell in read_percent_file(bundled_program('pick_place'))]
    return prompt, cells, policy.system_prefix(messages, tools, prompt)


def _peak_memory_gb(policy: LocalPolicy) -> str:
    import resource

    import torch

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    if policy.device.type == 'cuda':
        return f'{torch.cuda.max_memory_allocated(policy.device) / 1e9:.2f} GB CUDA'
    return f'{rss:.2f} GB peak RSS'


def real_model_step(model: str, calls: int, sample_tokens: int,
                    gradient_checkpointing: bool = False, lora_rank: int = 0,
                    system_gradient: bool = True) -> None:
    """Measure load, sampling and one optimizer step of a real model; print one line each."""
    import torch

    from pyrua_lab.training.policy import Completion, token_logprobs
    from pyrua_lab.training.rollout import Rollout
    from pyrua_lab.training.tiny import python_call_text

    started = time.monotonic()
    policy = LocalPolicy(model, gradient_checkpointing=gradient_checkpointing,
                         lora_rank=lora_rank)
    print(f'load {policy!r}: {time.monotonic() - started:.1f} s, {_peak_memory_gb(policy)}',
          flush=True)
    prompt, cells, prefix = _first_prompt(policy)
    for label, kept in (('whole prompt', 0), ('system message computed, kept', prefix),
                        ('system message kept', prefix)):
        started = time.monotonic()
        sampled = policy.sample(prompt, max(sample_tokens, 1), policy.generator(0), prefix=kept)
        wall = time.monotonic() - started
        print(f'sample ({label}): {len(prompt)} prompt tokens ({kept} kept) + '
              f'{len(sampled.completion_ids)} generated in {wall:.1f} s; '
              f'text: {policy.decode(sampled.completion_ids)[:80]!r}', flush=True)
    end = policy.tokenizer.convert_tokens_to_ids('<|im_end|>')
    completions = []
    history = list(prompt)
    for code in cells[:calls]:
        ids = policy.tokenizer(python_call_text(code), add_special_tokens=False)['input_ids']
        ids = [*ids, end]
        with torch.no_grad():
            old = token_logprobs(policy, history, ids)
        completions.append(Completion(tuple(history), tuple(ids), tuple(old.tolist()), 'stop',
                                      prefix))
        history += ids + policy.tokenizer('<|im_start|>user\n[the cell printed nothing]'
                                          '<|im_end|>\n<|im_start|>assistant\n',
                                          add_special_tokens=False)['input_ids']
    rollout = Rollout('bench', ('pick_place', 0), 1.0, 'solved', '', tuple(completions),
                      len(completions), 0.0)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-6, eps=1e-8)
    print(f'old log-probs of {len(completions)} calls done; {_peak_memory_gb(policy)}',
          flush=True)
    policy.model.train()
    started = time.monotonic()
    stats = accumulate_step(policy, [(rollout, 1.0)], clip_low=0.2, clip_high=0.28,
                            system_gradient=system_gradient)
    backward = time.monotonic() - started
    optimizer.step()
    step = time.monotonic() - started
    print(f'optimizer step: {len(completions)} calls, prompts {len(completions[0].prompt_ids)}..'
          f'{len(completions[-1].prompt_ids)} tokens, {stats.tokens} generated tokens: '
          f'forward+backward {backward:.1f} s, with Adam {step:.1f} s; {_peak_memory_gb(policy)}'
          f'; {stats!r}')


def main() -> None:
    """Run the measurements and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--model', default=None,
                        help='local model folder, .gguf file or local:<name>')
    parser.add_argument('--step', action='store_true',
                        help='measure sampling and one optimizer step of --model')
    parser.add_argument('--calls', type=int, default=2, help='--step: model calls in the step')
    parser.add_argument('--sample-tokens', type=int, default=32,
                        help='--step: tokens sampled on the first prompt')
    parser.add_argument('--gradient-checkpointing', action='store_true',
                        help='--step: recompute activations in the backward pass')
    parser.add_argument('--lora-rank', type=int, default=0,
                        help='--step: train LoRA adapters of this rank (0: every weight)')
    parser.add_argument('--constant-system', action='store_true',
                        help='--step: hold the system message constant in the loss '
                             '(system_gradient: false)')
    parser.add_argument('--hidden', type=int, default=32, help='tiny policy width')
    parser.add_argument('--layers', type=int, default=2, help='tiny policy layers')
    parser.add_argument('--episodes', type=int, default=16, help='episodes per measurement')
    args = parser.parse_args()
    if args.step:
        if not args.model:
            parser.error('--step needs --model (e.g. local:qwen2.5-coder-0.5b)')
        real_model_step(args.model, args.calls, args.sample_tokens,
                        args.gradient_checkpointing, args.lora_rank,
                        not args.constant_system)
        return
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

"""Only generated tokens carry gradient: prompt, tool results and images never do."""

import numpy as np
from pyrua_agent.llm import ChatClient, EndpointConfig
from pyrua_agent.llm.messages import attach_image, user_message
from pyrua_lab.training.tiny import python_call_text
import pytest


def _conversation(pixel_value):
    image = attach_image('head camera', np.full((8, 8, 3), pixel_value, np.uint8))
    tool_call = {'id': 'call_1', 'type': 'function',
                 'function': {'name': 'python', 'arguments': '{"code": "robo.press(\'red\')"}'}}
    return [
        {'role': 'system', 'content': 'You control buttons.'},
        user_message('Press the red button first.', [image]),
        {'role': 'assistant', 'content': None, 'tool_calls': [tool_call]},
        {'role': 'tool', 'tool_call_id': 'call_1',
         'content': 'pressed the red button\n' + python_call_text("robo.press('blue')")},
    ]


def test_loss_gradient_reaches_generated_positions_only(tiny_model):
    from pyrua_lab.training.engine import RolloutEngine
    from pyrua_lab.training.policy import LocalPolicy
    from pyrua_lab.training.rollout import Rollout
    from pyrua_lab.training.trainer import accumulate_step
    import torch

    policy = LocalPolicy(tiny_model)
    with RolloutEngine(policy, max_new_tokens=6) as engine:
        prompts = []
        for pixel in (0, 255):  # the same request with different image pixels
            url = engine.open_episode(f'px{pixel}', seed=3)
            with ChatClient(EndpointConfig(base_url=url, model='policy', max_retries=0)) as c:
                c.complete(_conversation(pixel))
            (completion,) = engine.take(f'px{pixel}')
            prompts.append(completion.prompt_ids)
    assert prompts[0] == prompts[1], 'image pixels must not reach the policy'
    # The tool result holds a token the policy can also generate: it must get no gradient.
    blue_call = policy.tokenizer.convert_tokens_to_ids(python_call_text("robo.press('blue')"))
    assert blue_call in completion.prompt_ids

    captured = {}

    def keep(module, inputs, output):
        output.retain_grad()
        captured['hidden'] = output

    hook = policy.model.model.norm.register_forward_hook(keep)
    try:
        rollout = Rollout(episode_id='px255', instance=('press_red', 0), reward=1.0,
                          end_reason='solved', detail='', completions=(completion,), cells=1,
                          wall_s=0.0)
        stats = accumulate_step(policy, [(rollout, 1.0)], clip_low=0.2, clip_high=0.28)
    finally:
        hook.remove()
    assert stats.tokens == len(completion.completion_ids) >= 1
    grad = captured['hidden'].grad[0].abs().sum(dim=-1)
    first = len(completion.prompt_ids) - 1  # this position predicts the first generated token
    last = first + len(completion.completion_ids)
    assert torch.all(grad[:first] == 0), 'prompt, tool result and image label positions'
    assert torch.all(grad[first:last] > 0), 'every generated token carries gradient'
    assert torch.all(grad[last:] == 0)
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in policy.model.parameters())


def test_an_episode_with_advantage_zero_adds_tokens_to_the_count_but_no_gradient(tiny_model):
    from pyrua_lab.training.policy import Completion, LocalPolicy
    from pyrua_lab.training.rollout import Rollout
    from pyrua_lab.training.trainer import accumulate_step

    policy = LocalPolicy(tiny_model)
    completion = Completion((0, 2), (3, 1), (-1.0, -1.5), 'stop')
    rollout = Rollout(episode_id='z', instance=('press_red', 0), reward=0.0,
                      end_reason='gave_up', detail='', completions=(completion,) * 3, cells=0,
                      wall_s=0.0)
    stats = accumulate_step(policy, [(rollout, 0.0)], clip_low=0.2, clip_high=0.28)
    assert stats.tokens == 6 and stats.loss == 0.0
    assert all(p.grad is None for p in policy.model.parameters())
    with pytest.raises(ValueError, match='token_count 0 vs >= 1'):
        from pyrua_lab.training import clipped_loss
        import torch

        clipped_loss(torch.zeros(1), torch.zeros(1), 1.0, clip_low=0.2, clip_high=0.28,
                     token_count=0)


def test_a_constant_system_message_gives_the_same_loss_from_a_shorter_pass(tiny_model):
    # system_gradient: false holds the system message's keys and values constant: the loss
    # is the same, and the pass covers only the tokens after the system message.
    from pyrua_lab.training.engine import RolloutEngine
    from pyrua_lab.training.policy import LocalPolicy
    from pyrua_lab.training.rollout import Rollout
    from pyrua_lab.training.trainer import accumulate_step
    import torch

    policy = LocalPolicy(tiny_model)
    with RolloutEngine(policy, max_new_tokens=6) as engine:
        url = engine.open_episode('sys', seed=5)
        with ChatClient(EndpointConfig(base_url=url, model='policy', max_retries=0)) as c:
            c.complete(_conversation(0))
        (completion,) = engine.take('sys')
    assert 0 < completion.prefix < len(completion.prompt_ids)
    rollout = Rollout(episode_id='sys', instance=('press_red', 0), reward=1.0,
                      end_reason='solved', detail='', completions=(completion,), cells=1,
                      wall_s=0.0)
    lengths, grads, losses = [], [], []
    hook = policy.model.model.norm.register_forward_hook(
        lambda module, inputs, output: lengths.append(output.shape[1]))
    try:
        for whole in (True, False):
            policy.model.zero_grad(set_to_none=True)
            stats = accumulate_step(policy, [(rollout, 1.0)], clip_low=0.2, clip_high=0.28,
                                    system_gradient=whole)
            losses.append(stats.loss)
            grads.append(torch.cat([p.grad.flatten() for p in policy.model.parameters()
                                    if p.grad is not None]))
    finally:
        hook.remove()
    total = len(completion.prompt_ids) + len(completion.completion_ids)
    assert lengths == [total, total - completion.prefix]
    assert losses[0] == pytest.approx(losses[1], abs=1e-6)
    assert grads[1].abs().sum() > 0 and not torch.equal(grads[0], grads[1])

"""GRPO raises the tiny random policy's success on the toy task, with a fixed seed."""

import pytest


@pytest.mark.slow
def test_grpo_raises_the_success_rate_of_a_tiny_random_policy(toy_config, tmp_path):
    from pyrua_lab.training import train

    # The random 19k-parameter policy solves the toy task (press red first) in about a quarter
    # of its episodes. Measured on this seed: mean reward per iteration
    # 0.12, 0.31, 0.56, 0.50, 0.75, 0.94, 0.94 (16 episodes each, about 55 s on 2 cores).
    config = toy_config(iterations=7, rollouts_per_instance=8, max_new_tokens=4)
    records = train(config, tmp_path)
    assert all(r['groups_dropped'] == 0 for r in records), 'no infrastructure failure here'
    rewards = [r['mean_reward'] for r in records]
    assert len(rewards) == 7
    assert rewards[0] <= 0.25, f'the random policy should solve the toy task rarely: {rewards}'
    assert 0.0 < rewards[0], f'and sometimes: {rewards}'
    assert sum(rewards[-2:]) / 2 >= 0.8, f'GRPO did not raise the success rate: {rewards}'

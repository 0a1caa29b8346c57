"""The GRPO loss against an independent computation of its formula."""

import math

from pyrua_lab.training import clipped_loss, group_advantages
import pytest


def _advantages_by_hand(rewards):
    n = len(rewards)
    mean = sum(rewards) / n
    var = sum((r - mean) ** 2 for r in rewards) / (n - 1)
    if var == 0:
        return [0.0] * n
    return [(r - mean) / (math.sqrt(var) + 1e-4) for r in rewards]


def test_group_advantages_normalise_within_the_group():
    rewards = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    advantages = group_advantages(rewards)
    assert advantages == pytest.approx(_advantages_by_hand(rewards))
    assert sum(advantages) == pytest.approx(0.0, abs=1e-9)
    assert advantages[0] > 0 > advantages[1]
    assert group_advantages([1.0] * 8) == [0.0] * 8
    assert group_advantages([0.0] * 8) == [0.0] * 8
    with pytest.raises(ValueError, match='a group of 1 rewards vs >= 2'):
        group_advantages([1.0])


def test_loss_on_a_fixed_batch_equals_the_formula_computed_by_hand():
    torch = pytest.importorskip('torch')
    # Two groups of two episodes; each episode's generated tokens as (new, old) log-probs.
    # Ratios cover: inside the clip range, above 1.28, below 0.8, for both advantage signs.
    episodes = [
        {'reward': 1.0, 'group': 0, 'tokens': [(-0.5, -1.0), (-2.0, -2.1), (-1.0, -0.9)]},
        {'reward': 0.0, 'group': 0, 'tokens': [(-0.2, -0.6), (-3.0, -2.5)]},
        {'reward': 0.0, 'group': 1, 'tokens': [(-1.0, -1.0), (-0.1, -0.4)]},
        {'reward': 1.0, 'group': 1, 'tokens': [(-2.0, -1.5), (-0.3, -0.3), (-1.2, -1.25)]},
    ]
    low, high = 0.2, 0.28
    n_tokens = sum(len(e['tokens']) for e in episodes)

    # By hand: plain floats, no shared code.
    by_group = {}
    for e in episodes:
        by_group.setdefault(e['group'], []).append(e)
    expected, clipped_low, clipped_high = 0.0, 0, 0
    for members in by_group.values():
        for e, a in zip(members, _advantages_by_hand([m['reward'] for m in members])):
            for new, old in e['tokens']:
                ratio = math.exp(new - old)
                clipped = min(max(ratio, 1 - low), 1 + high)
                expected += -min(ratio * a, clipped * a)
                clipped_low += ratio < 1 - low and a < 0
                clipped_high += ratio > 1 + high and a > 0
    expected /= n_tokens

    # The package's code: advantages per group, one clipped_loss call per episode.
    total, counted_low, counted_high = 0.0, 0, 0
    for members in by_group.values():
        for e, a in zip(members, group_advantages([m['reward'] for m in members])):
            new = torch.tensor([t[0] for t in e['tokens']], requires_grad=True)
            old = torch.tensor([t[1] for t in e['tokens']])
            terms = clipped_loss(new, old, a, clip_low=low, clip_high=high,
                                 token_count=n_tokens)
            total += float(terms.loss.detach())
            counted_low += terms.clipped_low
            counted_high += terms.clipped_high
    assert total == pytest.approx(expected, rel=1e-6)
    assert (counted_low, counted_high) == (clipped_low, clipped_high)
    assert clipped_low >= 1 and clipped_high >= 1, 'the batch must exercise both clips'


def test_clipped_tokens_get_no_gradient_and_unclipped_ones_do():
    torch = pytest.importorskip('torch')
    new = torch.tensor([0.5, 0.0, -0.5], requires_grad=True)  # ratios e^0.5, 1, e^-0.5
    old = torch.zeros(3)
    clipped_loss(new, old, 1.0, clip_low=0.2, clip_high=0.28, token_count=3).loss.backward()
    # A > 0: the ratio 1.65 > 1.28 is clipped (no gradient); the others push log-probs up.
    assert new.grad[0] == 0.0
    assert new.grad[1] == pytest.approx(-1 / 3) and new.grad[2] == pytest.approx(
        -math.exp(-0.5) / 3)

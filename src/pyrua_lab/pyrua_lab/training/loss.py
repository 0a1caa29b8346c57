"""
The GRPO objective: group-normalised advantages and the asymmetrically clipped loss.

For an episode ``i`` of a group with rewards ``r_1..r_G``, the advantage is
``A_i = (r_i - mean(r)) / (std(r) + 1e-4)`` (unbiased std, as TRL's ``scale_rewards='group'``);
a group whose rewards are all equal gives every episode ``A = 0``. Every token ``t`` the model
generated in the episode (reasoning and code, in every call) gets the episode's advantage;
no other token is in the loss (prompt, tool results and images are never generated). With
``ratio_t = exp(logp_new(t) - logp_old(t))`` the loss of one optimizer step is

    L = -(1 / N) * sum_t min(ratio_t * A_t, clip(ratio_t, 1 - eps_low, 1 + eps_high) * A_t)

over all ``N`` generated tokens of the step's episodes: TRL's ``loss_type='dapo'``
(token-level normalisation) with its ``epsilon``/``epsilon_high`` clipping, no KL (beta 0) and
no entropy term. Clip fractions count tokens as TRL does: below when ``ratio < 1 - eps_low``
and ``A < 0``, above when ``ratio > 1 + eps_high`` and ``A > 0``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import math
from typing import Any

STD_EPS = 1e-4


def group_advantages(rewards: Sequence[float]) -> list[float]:
    """
    Return each episode's advantage within its group.

    :param rewards: the group's rewards (at least two).
    :raises ValueError: for fewer than two rewards.
    """
    if len(rewards) < 2:
        raise ValueError(f'a group of {len(rewards)} rewards vs >= 2; group-normalised '
                         'advantages need a group')
    mean = sum(rewards) / len(rewards)
    std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / (len(rewards) - 1))
    if std == 0.0:
        return [0.0] * len(rewards)
    return [(r - mean) / (std + STD_EPS) for r in rewards]


@dataclass(frozen=True, slots=True)
class LossTerms:
    """
    One sequence's share of a step's loss (a tensor) and its clip counts.

    :param loss: ``sum_t`` of the clipped per-token loss divided by the step's token count.
    :param clipped_low: tokens clipped below.
    :param clipped_high: tokens clipped above.
    """

    loss: Any
    clipped_low: int
    clipped_high: int

    def __repr__(self) -> str:
        return (f'LossTerms({float(self.loss.detach()):.4g}, clipped {self.clipped_low} low / '
                f'{self.clipped_high} high)')


def clipped_loss(new_logprobs: Any, old_logprobs: Any, advantages: Any, *, clip_low: float,
                 clip_high: float, token_count: int) -> LossTerms:
    """
    Return the clipped policy-gradient loss of some generated tokens.

    :param new_logprobs: 1-D tensor, log-probs under the weights being trained.
    :param old_logprobs: 1-D tensor, log-probs under the weights that sampled them.
    :param advantages: 1-D tensor (or a float) of each token's advantage.
    :param clip_low: the ratio's lower clip is ``1 - clip_low``.
    :param clip_high: the ratio's upper clip is ``1 + clip_high``.
    :param token_count: ``N``, the generated tokens of the whole optimizer step.
    :returns: the loss terms; call ``loss.backward()`` per sequence to accumulate.
    """
    import torch

    if token_count < 1:
        raise ValueError(f'token_count {token_count} vs >= 1')
    ratio = torch.exp(new_logprobs - old_logprobs.to(new_logprobs))
    advantages = torch.as_tensor(advantages, dtype=ratio.dtype, device=ratio.device)
    clipped = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high)
    per_token = -torch.min(ratio * advantages, clipped * advantages)
    with torch.no_grad():
        low = int(((ratio < 1.0 - clip_low) & (advantages < 0)).sum())
        high = int(((ratio > 1.0 + clip_high) & (advantages > 0)).sum())
    return LossTerms(per_token.sum() / token_count, low, high)

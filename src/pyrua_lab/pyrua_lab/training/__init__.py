"""
GRPO training of an open model on the code interface (``pyrua train``).

Rollouts are ordinary code-agent episodes (same planner, prompt, sandboxed runtime and
budgets as evaluation) against a rollout engine that serves the policy over the
OpenAI-compatible API and records each generated token and its log-prob. The loss follows
TRL's GRPO formulation (``loss``); the multi-turn robot episode is this package's own part.

Importing this package needs no torch: the training stack (the ``train`` extra) is imported
by the functions that use it.
"""

from .config import load_train_config, TrainConfig
from .curve import write_curve
from .loss import clipped_loss, group_advantages
from .rollout import Rollout, TrainingError
from .trainer import GrpoTrainer, train

__all__ = [
    'GrpoTrainer',
    'Rollout',
    'TrainConfig',
    'TrainingError',
    'clipped_loss',
    'group_advantages',
    'load_train_config',
    'train',
    'write_curve',
]

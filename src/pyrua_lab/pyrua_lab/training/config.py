"""
``TrainConfig``: every setting of a GRPO run, one flat dataclass, read from one YAML spec.

The defaults are the reference recipe: 16 instances x 8 rollouts per iteration, reward =
task success (0/1) only, advantages normalised within each group of 8, the clipped
policy-gradient loss (0.2 below, 0.28 above) on every generated token, two optimizer steps
of 64 episodes per iteration, Adam at a constant 1e-6, no KL and no entropy term, full
fine-tuning, episodes limited to 24 cells, 25 minutes and 4,096 new tokens per call, groups
with an infrastructure failure dropped and played again, 30 iterations, a checkpoint per
iteration. ``lora_rank`` > 0 trains low-rank adapters (``peft``) instead of every weight: the
optimizer state of a CPU run then fits, and a larger learning rate is the usual choice. A
spec names at least the model folder and the training tasks::

    model: /models/Qwen3-4B-Instruct       # or a .gguf file, or local:qwen2.5-coder-0.5b
    tasks: [pick_place, stack_blocks, push_to_zone]
    layouts: 0-14
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
import math
from pathlib import Path
from typing import Any

from pyrua_primitives.naming import unknown_name

ENGINES = ('transformers', 'sglang')
DEVICES = ('auto', 'cpu', 'cuda')


def parse_layouts(value: Any) -> tuple[int, ...]:
    """
    Return layout indices from a list of ints, an int, or text like ``'0-14'`` / ``'0,3,5'``.

    :raises ValueError: for anything else, showing the accepted forms.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return tuple(value)
    if isinstance(value, str):
        out: list[int] = []
        try:
            for part in value.replace(' ', '').split(','):
                first, _, last = part.partition('-')
                out.extend(range(int(first), int(last or first) + 1))
        except ValueError:
            pass
        else:
            return tuple(out)
    raise ValueError(f'layouts {value!r} vs a list of ints, an int, or text like "0-14" or '
                     '"0,3,5"')


def check_tasks(world: str, tasks: tuple[str, ...], seed: int,
                layouts: tuple[int, ...]) -> None:
    """
    Refuse task names, a seed or layouts the world does not have, before any episode runs.

    The twin takes the built-in tasks (``pyrua tasks``) and their seed/layout ranges, the
    ``libero`` world benchmark tasks (``'libero_spatial/3'``), the toy world ``'press_red'``.

    :raises ValueError: naming the bad entry, the valid ones and the closest one.
    """
    if world == 'twin':
        from pyrua_sim.layout import check_seed_index
        from pyrua_sim.tasks import TASKS

        for task in tasks:
            if task not in TASKS:
                raise ValueError(f'tasks: {unknown_name("task", task, TASKS)}; '
                                 '`pyrua tasks` lists them')
        for layout in layouts:
            check_seed_index(seed, layout)
    elif world == 'libero':
        from pyrua_sim.benchmarks.registry import split_task

        for task in tasks:
            split_task(task)
    elif world == 'toy':
        from .toy import TOY_TASK

        for task in tasks:
            if task != TOY_TASK:
                raise ValueError(f'tasks: {unknown_name("toy world task", task, (TOY_TASK,))}')


@dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """
    One GRPO run of the code agent.

    :param model: the policy: a Hugging Face folder, a ``.gguf`` file, or ``local:<name>``
        of the ``pyrua_local`` catalogue (``model_source``); nothing is downloaded.
    :param tasks: training tasks; each with each layout is one instance.
    :param world: a registered world (``pyrua_primitives.world``): ``'twin'`` (the MuJoCo
        station) or ``'toy'`` (the button panel of ``training.toy``).
    :param seed: layout seed of the instances.
    :param layouts: layout indices (``'0-14'``, ``[0, 3]``).
    :param iterations: training iterations.
    :param instances_per_iteration: instances drawn (without replacement) per iteration.
    :param rollouts_per_instance: episodes per instance: one group.
    :param optimizer_steps: optimizer steps per iteration; the episodes are split evenly.
    :param learning_rate: Adam's constant learning rate.
    :param clip_low: the ratio is clipped below at ``1 - clip_low``.
    :param clip_high: and above at ``1 + clip_high``.
    :param adam_betas: Adam's betas.
    :param max_grad_norm: clip the gradient norm to this (0: no clipping, the recipe).
    :param max_cells: cell budget of a training episode.
    :param max_llm_calls: model-call budget of a training episode.
    :param wall_clock_s: wall-clock budget of a training episode, seconds.
    :param max_new_tokens: generated tokens per model call.
    :param temperature: sampling temperature of rollouts.
    :param call_form: how the policy writes a cell, as ``EndpointConfig.call_form``:
        ``'auto'`` reads the model as evaluation reads it (a ``local:`` model with the local
        models' settings: fenced blocks, the first reply prefilled with the block's opening;
        any other model with ``python`` tool calls), or ``'tool'`` / ``'fence'``.
    :param lora_rank: 0 trains every weight (the recipe); > 0 trains LoRA adapters of this
        rank on every linear layer of the decoder (``peft``), the base weights frozen.
    :param lora_alpha: the adapters' scale numerator (their update is scaled by
        ``lora_alpha / lora_rank``).
    :param system_gradient: True (the recipe): the gradient flows through every prompt
        token. False: the loss holds each call's system message constant (its keys and
        values computed with the current weights, without gradient), so the forward and
        backward passes cover only what follows it: the same loss, several times cheaper for
        a long system prompt on a CPU, and a gradient that leaves out how the weights change
        the system message's keys and values.
    :param engine: the rollout engine, one of ``ENGINES``: ``'transformers'`` (in process,
        one request at a time) or ``'sglang'`` (a running SGLang server at ``engine_url``
        generates, batched; CUDA only; weights synced after each iteration).
    :param engine_url: the SGLang server of ``engine: sglang``, e.g.
        ``http://127.0.0.1:30000``.
    :param device: ``'auto'``, ``'cpu'`` or ``'cuda'``.
    :param dtype: the weights' dtype (float32: Adam at 1e-6 needs it).
    :param compute_dtype: forward passes under autocast: ``'auto'`` is bfloat16 on CUDA and
        float32 on CPU.
    :param gradient_checkpointing: recompute activations in the backward pass (long episodes
        on one GPU).
    :param executor: where episodes run, one of ``pyrua_lab.evaluation.EXECUTORS``:
        ``'pool'`` (local processes) or ``'ray'`` (a local Ray: its workers reach the rollout
        engine on 127.0.0.1).
    :param parallel_episodes: episodes played at the same time (pool processes, Ray CPUs).
    :param max_group_attempts: plays of one group before an instance whose groups keep losing
        episodes to infrastructure failures stops the run.
    :param endpoint_retries: retries of a failed model call inside an episode.
    :param record: record every training episode (bag + transcript) under
        ``OUT/episodes/``.
    :param sandbox: cell isolation of the episodes (``'auto'`` uses the OS sandbox).
    :param train_seed: seeds the instance draws, the episode sampling and the batch order.
    :param keep_checkpoints: most recent iteration checkpoints kept (the rest are deleted).
    """

    model: str
    tasks: tuple[str, ...]
    world: str = 'twin'
    seed: int = 0
    layouts: tuple[int, ...] = tuple(range(15))
    iterations: int = 30
    instances_per_iteration: int = 16
    rollouts_per_instance: int = 8
    optimizer_steps: int = 2
    learning_rate: float = 1e-6
    clip_low: float = 0.2
    clip_high: float = 0.28
    adam_betas: tuple[float, float] = (0.9, 0.999)
    max_grad_norm: float = 0.0
    max_cells: int = 24
    max_llm_calls: int = 40
    wall_clock_s: float = 1500.0
    max_new_tokens: int = 4096
    temperature: float = 1.0
    call_form: str = 'auto'
    lora_rank: int = 0
    lora_alpha: float = 16.0
    system_gradient: bool = True
    engine: str = 'transformers'
    engine_url: str = ''
    device: str = 'auto'
    dtype: str = 'float32'
    compute_dtype: str = 'auto'
    gradient_checkpointing: bool = False
    executor: str = 'pool'
    parallel_episodes: int = 4
    max_group_attempts: int = 3
    endpoint_retries: int = 2
    record: bool = True
    sandbox: str = 'auto'
    train_seed: int = 0
    keep_checkpoints: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, 'tasks', tuple(self.tasks))
        object.__setattr__(self, 'layouts', parse_layouts(self.layouts))
        object.__setattr__(self, 'adam_betas', tuple(self.adam_betas))
        if not self.model:
            raise ValueError("model '' vs the local folder of the policy; e.g. model: "
                             '/models/Qwen3-4B-Instruct')
        if not self.tasks:
            raise ValueError('tasks [] vs at least one training task')
        from pyrua_agent.episode import SANDBOX_MODES
        from pyrua_agent.llm.config import CALL_FORMS
        from pyrua_primitives.world import world_names

        from ..evaluation.executors import EXECUTORS

        for name, options in (('world', world_names()), ('engine', ENGINES),
                              ('sandbox', SANDBOX_MODES), ('executor', EXECUTORS),
                              ('call_form', CALL_FORMS)):
            if getattr(self, name) not in options:
                raise ValueError(unknown_name(name, getattr(self, name), options))
        from .policy import COMPUTE_DTYPES, DTYPES

        if self.dtype not in DTYPES:
            raise ValueError(unknown_name('dtype', self.dtype, DTYPES))
        if self.compute_dtype not in COMPUTE_DTYPES:
            raise ValueError(unknown_name('compute_dtype', self.compute_dtype, COMPUTE_DTYPES))
        if not (self.device in DEVICES or self.device.startswith('cuda:')):
            raise ValueError(unknown_name('device', self.device, DEVICES))
        check_tasks(self.world, self.tasks, self.seed, self.layouts)
        for name in ('iterations', 'instances_per_iteration', 'rollouts_per_instance',
                     'optimizer_steps', 'max_cells', 'max_llm_calls', 'max_new_tokens',
                     'parallel_episodes', 'max_group_attempts', 'keep_checkpoints'):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f'{name} {value!r} vs an integer >= 1')
        if self.rollouts_per_instance < 2:
            raise ValueError(f'rollouts_per_instance {self.rollouts_per_instance} vs >= 2; '
                             'group-normalised advantages need a group')
        if self.instances_per_iteration > len(self.instance_keys()):
            raise ValueError(
                f'instances_per_iteration {self.instances_per_iteration} vs '
                f'{len(self.instance_keys())} instances ({len(self.tasks)} tasks x '
                f'{len(self.layouts)} layouts); add layouts or tasks, or draw fewer')
        if self.episodes_per_iteration % self.optimizer_steps:
            raise ValueError(f'{self.episodes_per_iteration} episodes per iteration vs '
                             f'{self.optimizer_steps} optimizer steps: not divisible; change '
                             'optimizer_steps')
        for name in ('learning_rate', 'wall_clock_s', 'temperature'):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f'{name} {value!r} vs > 0')
        if not 0 < self.clip_low < 1:
            raise ValueError(f'clip_low {self.clip_low!r} vs (0, 1); the recipe uses 0.2')
        if not self.clip_high > 0:
            raise ValueError(f'clip_high {self.clip_high!r} vs > 0; the recipe uses 0.28')
        if self.engine == 'sglang' and not self.engine_url:
            raise ValueError("engine 'sglang' vs engine_url ''; give the server's URL, e.g. "
                             'engine_url: http://127.0.0.1:30000 (README, "Training on a GPU")')
        if self.engine == 'sglang' and self.temperature != 1.0:
            raise ValueError(f"temperature {self.temperature} vs 1.0 for engine 'sglang': "
                             "SGLang's log-probs match the loss only at 1.0")
        if (not isinstance(self.lora_rank, int) or isinstance(self.lora_rank, bool)
                or self.lora_rank < 0):
            raise ValueError(f'lora_rank {self.lora_rank!r} vs an integer >= 0 (0: every '
                             'weight trains)')
        if not (math.isfinite(self.lora_alpha) and self.lora_alpha > 0):
            raise ValueError(f'lora_alpha {self.lora_alpha!r} vs > 0')
        if self.lora_rank and self.engine == 'sglang':
            raise ValueError("lora_rank > 0 vs engine 'sglang', which loads whole checkpoints; "
                             'train LoRA with engine: transformers, or set lora_rank: 0')
        if self.max_grad_norm < 0:
            raise ValueError(f'max_grad_norm {self.max_grad_norm} vs >= 0 (0: off)')
        if self.endpoint_retries < 0:
            raise ValueError(f'endpoint_retries {self.endpoint_retries} vs >= 0')

    @property
    def uses_lora(self) -> bool:
        """Return True when the run trains LoRA adapters, not every weight."""
        return self.lora_rank > 0

    @property
    def episodes_per_iteration(self) -> int:
        """Return episodes per iteration (instances x rollouts)."""
        return self.instances_per_iteration * self.rollouts_per_instance

    def instance_keys(self) -> list[tuple[str, int]]:
        """Return every ``(task, layout)`` training instance, in a fixed order."""
        return [(task, layout) for task in self.tasks for layout in self.layouts]

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as YAML-ready data."""
        data = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = 'spec') -> TrainConfig:
        """
        Build a config from a mapping, refusing unknown keys with a suggestion.

        :raises ValueError: for an unknown key or a bad value.
        """
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise ValueError(f'{where}: {unknown_name("training setting", key, known)}')
        for key in ('model', 'tasks'):
            if key not in data:
                raise ValueError(f'{where}: {key!r} is missing; a spec names at least the '
                                 'model folder and the training tasks')
        return cls(**data)


def load_train_config(path: str | Path, **overrides: Any) -> TrainConfig:
    """
    Read a training spec (YAML) over the recipe defaults.

    :param path: the spec file.
    :param overrides: settings that replace the file's (``iterations=1`` for a smoke run).
    :returns: the config.
    :raises FileNotFoundError: when the file does not exist.
    :raises ValueError: for unknown keys or bad values.
    """
    import yaml

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f'training spec {str(path)!r} does not exist; write one '
                                '(see README, "Training the Coder")')
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f'{path}: top level is a {type(data).__name__} vs a mapping of '
                         'settings')
    if ('model' in data and not str(data['model']).startswith('local:')
            and not Path(str(data['model'])).is_absolute()):
        data['model'] = str((path.parent / str(data['model'])).resolve())
    data.update(overrides)
    return TrainConfig.from_dict(data, where=str(path))

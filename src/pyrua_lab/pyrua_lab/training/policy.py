"""
The policy under training: a local Hugging Face causal LM, its sampler and its log-probs.

``LocalPolicy`` loads a model folder by path (``local_files_only``: nothing is downloaded),
renders chat requests with the model's own chat template, samples completions token by token
with a per-episode ``torch.Generator`` (so an episode's tokens depend only on its seed and the
weights, whatever else runs in parallel), and records each sampled token's log-probability
under the sampling distribution (``log_softmax(logits / temperature)``). ``token_logprobs``
recomputes the same quantity with gradients for the loss, using TRL's
``selective_log_softmax``.

torch, transformers and trl are the ``train`` extra: ``pip install 'pyrua_lab[train]'``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
import inspect
from pathlib import Path
from typing import Any

from pyrua_primitives.errors import MissingDependency

from .chat import template_messages
from .model_source import resolve_source

DTYPES = ('float32', 'bfloat16', 'float16')
COMPUTE_DTYPES = ('auto', *DTYPES)


def require_training_stack() -> None:
    """
    Check that torch, transformers and trl import.

    :raises MissingDependency: naming the pip command of the train extra.
    """
    missing = []
    for module in ('torch', 'transformers', 'trl'):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        raise MissingDependency(f'pyrua train needs {", ".join(missing)} vs not installed; '
                                "pip install 'pyrua_lab[train]'")


@dataclass(frozen=True, slots=True)
class Completion:
    """
    One sampled completion: the exact prompt and generated token ids and their log-probs.

    :param prompt_ids: the rendered prompt's tokens.
    :param completion_ids: every generated token, the end-of-turn token included.
    :param logprobs: the sampling log-probability of each generated token.
    :param finish_reason: ``'stop'`` (end-of-turn token) or ``'length'`` (token cap).
    """

    prompt_ids: tuple[int, ...]
    completion_ids: tuple[int, ...]
    logprobs: tuple[float, ...]
    finish_reason: str

    def __repr__(self) -> str:
        return (f'Completion({len(self.prompt_ids)} prompt + {len(self.completion_ids)} '
                f'generated tokens, {self.finish_reason})')


class LocalPolicy:
    """
    A causal LM from a local folder, with its tokenizer and chat template.

    :param path: the model: a Hugging Face folder, a ``.gguf`` file, or ``local:<name>``
        (``model_source.resolve_source``).
    :param device: ``'auto'`` (CUDA when available), ``'cpu'`` or ``'cuda'``/``'cuda:N'``.
    :param dtype: the weights' dtype, one of ``DTYPES``. Keep float32 for training: Adam at
        1e-6 moves a weight by far less than bfloat16 can represent, so bfloat16 weights would
        not change at all.
    :param compute_dtype: the forward passes' dtype through ``torch.autocast``: ``'auto'``
        (bfloat16 on CUDA, the weights' dtype on CPU) or one of ``DTYPES``; sampling and the
        training log-probs use the same one.
    :param temperature: sampling temperature (also used for the training log-probs).
    :param gradient_checkpointing: trade compute for memory in the training forward pass.
    :raises FileNotFoundError: when ``path`` is none of those.
    """

    def __init__(self, path: str | Path, *, device: str = 'auto', dtype: str = 'float32',
                 compute_dtype: str = 'auto', temperature: float = 1.0,
                 gradient_checkpointing: bool = False) -> None:
        require_training_stack()
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.source = resolve_source(path)
        self.path = self.source.path
        found = self.source.load_kwargs()
        if dtype not in DTYPES:
            raise ValueError(f'dtype {dtype!r} vs {DTYPES}')
        if compute_dtype not in COMPUTE_DTYPES:
            raise ValueError(f'compute_dtype {compute_dtype!r} vs {COMPUTE_DTYPES}')
        if device == 'auto':
            device = 'cuda' if torch.cuda.is_available() else 'cpu'
        if compute_dtype == 'auto':
            compute_dtype = 'bfloat16' if device.startswith('cuda') else dtype
        self.device = torch.device(device)
        self.compute_dtype = getattr(torch, compute_dtype)
        self.autocast = compute_dtype != dtype
        self.temperature = temperature
        self.tokenizer = AutoTokenizer.from_pretrained(self.source.folder, local_files_only=True,
                                                       **found)
        if not self.tokenizer.chat_template:
            raise ValueError(f'tokenizer of {str(self.path)!r} has no chat template vs '
                             'required to render the planner messages; use an instruct '
                             'model folder')
        self.model = AutoModelForCausalLM.from_pretrained(
            self.source.folder, local_files_only=True, dtype=getattr(torch, dtype),
            **found).to(self.device)
        if found:
            # The GGUF weights are dequantised to plain tensors on load: drop the quantizer
            # transformers attaches, so checkpoints save as an ordinary model folder.
            self.model.hf_quantizer = None
            if hasattr(self.model.config, 'quantization_config'):
                del self.model.config.quantization_config
        self.model.eval()
        if gradient_checkpointing:
            # transformers 5.x renamed it (the old name warns, and is to go in v6).
            enable = (getattr(self.model, 'activation_checkpointing_enable', None)
                      or self.model.gradient_checkpointing_enable)
            enable()
        self.stop_ids = self._stop_ids()
        # transformers 5.x renamed the key-value cache argument from past_key_values to cache.
        forward = inspect.signature(self.model.forward).parameters
        self._cache_name = 'cache' if 'cache' in forward else 'past_key_values'
        self.max_positions = int(getattr(self.model.config, 'max_position_embeddings', 0)
                                 or 1 << 30)

    def __repr__(self) -> str:
        params = sum(p.numel() for p in self.model.parameters())
        return (f'LocalPolicy({self.path.name!r}, {params:,} params, '
                f'{self.device}, T={self.temperature:g})')

    def _stop_ids(self) -> frozenset[int]:
        ids = set()
        for source in (self.model.generation_config.eos_token_id,
                       self.tokenizer.eos_token_id):
            if isinstance(source, int):
                ids.add(source)
            elif source:
                ids.update(source)
        if not ids:
            raise ValueError(f'model {str(self.path)!r} defines no end-of-sequence token vs '
                             'required to end a turn; set eos_token_id in its config')
        return frozenset(ids)

    def render(self, messages: Sequence[Mapping[str, Any]],
               tools: Sequence[Mapping[str, Any]] | None = None) -> list[int]:
        """Return the prompt tokens of a chat request, ready for the assistant's turn."""
        text = self.tokenizer.apply_chat_template(
            template_messages(messages), tools=list(tools) if tools else None,
            add_generation_prompt=True, tokenize=False)
        return list(self.tokenizer(text, add_special_tokens=False)['input_ids'])

    def decode(self, ids: Sequence[int]) -> str:
        """Return the text of generated tokens, without the end-of-turn token."""
        kept = [i for i in ids if i not in self.stop_ids]
        return self.tokenizer.decode(kept, skip_special_tokens=False)

    def sample(self, prompt_ids: Sequence[int], max_new_tokens: int, generator: Any) -> Completion:
        """
        Sample one completion token by token, with a key-value cache.

        :param prompt_ids: the rendered prompt.
        :param max_new_tokens: the most tokens to generate.
        :param generator: the episode's ``torch.Generator`` (on the model's device).
        :returns: the completion with each token's sampling log-prob.
        """
        import torch

        ids: list[int] = []
        logprobs: list[float] = []
        finish = 'length'
        with torch.no_grad(), self.compute():
            step_input = torch.tensor([list(prompt_ids)], device=self.device)
            cache = None
            for _ in range(max_new_tokens):
                out = self.model(input_ids=step_input, use_cache=True,
                                 **{self._cache_name: cache})
                cache = getattr(out, self._cache_name)
                logp = torch.log_softmax(out.logits[0, -1].float() / self.temperature, dim=-1)
                token = torch.multinomial(logp.exp(), 1, generator=generator)
                ids.append(int(token))
                logprobs.append(float(logp[token]))
                if ids[-1] in self.stop_ids:
                    finish = 'stop'
                    break
                step_input = token.view(1, 1)
        return Completion(tuple(prompt_ids), tuple(ids), tuple(logprobs), finish)

    def compute(self) -> Any:
        """Return the autocast context of forward passes (a no-op when dtypes agree)."""
        import torch

        return torch.autocast(device_type=self.device.type, dtype=self.compute_dtype,
                              enabled=self.autocast)

    def generator(self, seed: int) -> Any:
        """Return a ``torch.Generator`` on the model's device seeded with ``seed``."""
        import torch

        generator = torch.Generator(device=self.device)
        generator.manual_seed(seed)
        return generator


def token_logprobs(policy: LocalPolicy, prompt_ids: Sequence[int],
                   completion_ids: Sequence[int]) -> Any:
    """
    Return the log-prob of each generated token under the current weights, with gradients.

    One sequence per forward pass (no padding), and logits only for the generated positions
    (``logits_to_keep``), so a long multi-turn prompt costs no vocabulary-sized activations.

    :param policy: the policy (its temperature scales the logits, as in sampling).
    :param prompt_ids: the call's prompt tokens.
    :param completion_ids: the tokens the policy generated for it.
    :returns: a 1-D float tensor aligned with ``completion_ids``.
    """
    import torch
    from trl.trainer.utils import selective_log_softmax

    tokens = torch.tensor([list(prompt_ids) + list(completion_ids)], device=policy.device)
    keep = len(completion_ids) + 1
    with policy.compute():
        logits = policy.model(input_ids=tokens, logits_to_keep=keep).logits
    logits = logits[:, :-1].float() / policy.temperature
    return selective_log_softmax(logits, tokens[:, -len(completion_ids):])[0]

"""
The policy under training: a local Hugging Face causal LM, its sampler and its log-probs.

``LocalPolicy`` loads a model folder by path (``local_files_only``: nothing is downloaded),
renders chat requests with the model's own chat template, samples completions token by token
with a per-episode ``torch.Generator`` (so an episode's tokens depend only on its seed and the
weights, whatever else runs in parallel), and records each sampled token's log-probability
under the sampling distribution (``log_softmax(logits / temperature)``). ``token_logprobs``
recomputes the same quantity with gradients for the loss, using TRL's
``selective_log_softmax``.

A request's system message (the same long prompt in every episode of a run) is computed once
per set of weights: its key-value cache is kept, keyed by its tokens, and each request copies
it and computes only what follows (``sample(prefix=...)``); ``forget_prefixes`` drops the
kept caches when the weights change. The kept prefix is always the whole system message,
computed alone, so a request's numbers do not depend on which requests came before it.

With ``lora_rank`` > 0 the model is wrapped in LoRA adapters (``peft``) on every linear
layer: only the adapters train.

torch, transformers, trl and peft are the ``train`` extra: ``pip install 'pyrua_lab[train]'``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
import copy
from dataclasses import dataclass
import inspect
from pathlib import Path
from typing import Any

from pyrua_primitives.errors import MissingDependency

from .chat import template_messages
from .model_source import resolve_source

DTYPES = ('float32', 'bfloat16', 'float16')
COMPUTE_DTYPES = ('auto', *DTYPES)
KEPT_PREFIXES = 4
"""System-message caches kept at once (one per task's prompt is the usual need)."""
LORA_SEED = 0
"""Seeds the LoRA adapters' random initial A matrices (B starts at zero)."""


def require_training_stack() -> None:
    """
    Check that torch, transformers, trl and peft import.

    :raises MissingDependency: naming the pip command of the train extra.
    """
    missing = []
    for module in ('torch', 'transformers', 'trl', 'peft'):
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
    :param prefix: the first prompt tokens whose key-value cache was kept (the system
        message; 0: the whole prompt was computed for this call).
    """

    prompt_ids: tuple[int, ...]
    completion_ids: tuple[int, ...]
    logprobs: tuple[float, ...]
    finish_reason: str
    prefix: int = 0

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
    :param lora_rank: 0: every weight trains; > 0: LoRA adapters of this rank on every
        linear layer of the decoder train, the loaded weights frozen.
    :param lora_alpha: the adapters' scale numerator (``lora_alpha / lora_rank``).
    :param adapter: a saved adapter folder to continue training (a resumed LoRA run).
    :raises FileNotFoundError: when ``path`` is none of those, or ``adapter`` is missing.
    """

    def __init__(self, path: str | Path, *, device: str = 'auto', dtype: str = 'float32',
                 compute_dtype: str = 'auto', temperature: float = 1.0,
                 gradient_checkpointing: bool = False, lora_rank: int = 0,
                 lora_alpha: float = 16.0, adapter: str | Path | None = None) -> None:
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
        self.lora_rank = lora_rank
        if lora_rank or adapter is not None:
            self.model = _with_lora(self.model, lora_rank, lora_alpha, adapter,
                                    gradient_checkpointing)
        self._prefixes: OrderedDict[tuple[int, ...], Any] = OrderedDict()
        self.prefix_hits = 0
        self.max_positions = int(getattr(self.model.config, 'max_position_embeddings', 0)
                                 or 1 << 30)

    def __repr__(self) -> str:
        params = sum(p.numel() for p in self.model.parameters())
        lora = (f', LoRA rank {self.lora_rank}: {self.trainable_parameters():,} train'
                if self.lora_rank else '')
        return (f'LocalPolicy({self.path.name!r}, {params:,} params{lora}, '
                f'{self.device}, T={self.temperature:g})')

    def parameters(self) -> list[Any]:
        """Return the parameters that train (the adapters' only, with LoRA)."""
        return [p for p in self.model.parameters() if p.requires_grad]

    def trainable_parameters(self) -> int:
        """Return how many weights train."""
        return sum(p.numel() for p in self.parameters())

    def merged_model(self) -> Any:
        """Return the model to save as a plain model folder (adapters merged into a copy)."""
        if not self.lora_rank:
            return self.model
        return copy.deepcopy(self.model).merge_and_unload()

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
               tools: Sequence[Mapping[str, Any]] | None = None, *,
               continue_final: bool = False) -> list[int]:
        """
        Return the prompt tokens of a chat request, ready for the assistant's turn.

        :param continue_final: the last message is the assistant's partial reply, to be
            continued (vLLM's ``continue_final_message``), not closed.
        """
        text = self.tokenizer.apply_chat_template(
            template_messages(messages), tools=list(tools) if tools else None,
            add_generation_prompt=not continue_final, continue_final_message=continue_final,
            tokenize=False)
        return self._tokens(text)

    def system_prefix(self, messages: Sequence[Mapping[str, Any]],
                      tools: Sequence[Mapping[str, Any]] | None,
                      prompt: Sequence[int]) -> int:
        """
        Return how many of ``prompt``'s first tokens are the request's system message alone.

        0 when the request opens with no system message or its tokens are not a prefix of
        ``prompt`` (a template that renders it differently in context): nothing is reused.
        """
        if not messages or messages[0].get('role') != 'system' or len(messages) < 2:
            return 0
        text = self.tokenizer.apply_chat_template(
            template_messages(messages[:1]), tools=list(tools) if tools else None,
            add_generation_prompt=False, tokenize=False)
        head = self._tokens(text)
        if len(head) >= len(prompt) or list(prompt[:len(head)]) != head:
            return 0
        return len(head)

    def _tokens(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)['input_ids'])

    def forget_prefixes(self) -> None:
        """Drop the kept system-message caches (call it whenever the weights change)."""
        self._prefixes.clear()

    def _prefix_cache(self, tokens: tuple[int, ...]) -> Any:
        """Return a private copy of the key-value cache of ``tokens`` (computed on a miss)."""
        import torch

        cache = self._prefixes.get(tokens)
        if cache is None:
            with torch.no_grad(), self.compute():
                out = self.model(input_ids=torch.tensor([list(tokens)], device=self.device),
                                 use_cache=True, logits_to_keep=1)
            cache = getattr(out, self._cache_name)
            self._prefixes[tokens] = cache
            while len(self._prefixes) > KEPT_PREFIXES:
                self._prefixes.popitem(last=False)
        else:
            self.prefix_hits += 1
            self._prefixes.move_to_end(tokens)
        return copy.deepcopy(cache)

    def decode(self, ids: Sequence[int]) -> str:
        """Return the text of generated tokens, without the end-of-turn token."""
        kept = [i for i in ids if i not in self.stop_ids]
        return self.tokenizer.decode(kept, skip_special_tokens=False)

    def sample(self, prompt_ids: Sequence[int], max_new_tokens: int, generator: Any, *,
               prefix: int = 0) -> Completion:
        """
        Sample one completion token by token, with a key-value cache.

        :param prompt_ids: the rendered prompt.
        :param max_new_tokens: the most tokens to generate.
        :param generator: the episode's ``torch.Generator`` (on the model's device).
        :param prefix: the first tokens whose cache is kept across requests (the system
            message, ``system_prefix``); 0 computes the whole prompt.
        :returns: the completion with each token's sampling log-prob.
        :raises ValueError: for a prefix that leaves no prompt token to compute.
        """
        import torch

        if not 0 <= prefix < len(prompt_ids):
            raise ValueError(f'prefix {prefix} vs 0 <= prefix < {len(prompt_ids)} prompt '
                             'tokens; the last prompt token gives the first logits')
        ids: list[int] = []
        logprobs: list[float] = []
        finish = 'length'
        with torch.no_grad(), self.compute():
            cache = self._prefix_cache(tuple(prompt_ids[:prefix])) if prefix else None
            step_input = torch.tensor([list(prompt_ids[prefix:])], device=self.device)
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
        return Completion(tuple(prompt_ids), tuple(ids), tuple(logprobs), finish, prefix)

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
                   completion_ids: Sequence[int], *, constant_prefix: int = 0) -> Any:
    """
    Return the log-prob of each generated token under the current weights, with gradients.

    One sequence per forward pass (no padding), and logits only for the generated positions
    (``logits_to_keep``), so a long multi-turn prompt costs no vocabulary-sized activations.

    :param policy: the policy (its temperature scales the logits, as in sampling).
    :param prompt_ids: the call's prompt tokens.
    :param completion_ids: the tokens the policy generated for it.
    :param constant_prefix: the first prompt tokens (the system message) whose keys and values
        are computed without gradient, with the current weights, and held constant: the
        log-probs are the same, the forward and backward passes cover only what follows,
        and the gradient leaves out how the weights change those keys and values.
    :returns: a 1-D float tensor aligned with ``completion_ids``.
    :raises ValueError: for a constant prefix that leaves no prompt token.
    """
    import torch
    from trl.trainer.utils import selective_log_softmax

    if not 0 <= constant_prefix < len(prompt_ids):
        raise ValueError(f'constant_prefix {constant_prefix} vs 0 <= prefix < '
                         f'{len(prompt_ids)} prompt tokens')
    tokens = torch.tensor([list(prompt_ids) + list(completion_ids)], device=policy.device)
    keep = len(completion_ids) + 1
    cache = {}
    if constant_prefix:
        cache = {policy._cache_name: policy._prefix_cache(tuple(prompt_ids[:constant_prefix]))}
        tokens = tokens[:, constant_prefix:]
    with policy.compute():
        logits = policy.model(input_ids=tokens, logits_to_keep=keep, **cache).logits
    logits = logits[:, :-1].float() / policy.temperature
    return selective_log_softmax(logits, tokens[:, -len(completion_ids):])[0]


def _with_lora(model: Any, rank: int, alpha: float, adapter: str | Path | None,
               gradient_checkpointing: bool) -> Any:
    """Return ``model`` wrapped in LoRA adapters: new ones of ``rank``, or ``adapter``'s."""
    import peft
    import torch

    if adapter is not None:
        if not (Path(adapter) / 'adapter_config.json').is_file():
            raise FileNotFoundError(f'LoRA adapter folder {str(adapter)!r} has no '
                                    'adapter_config.json; give the adapter/ folder of a '
                                    'checkpoint')
        wrapped = peft.PeftModel.from_pretrained(model, str(adapter), is_trainable=True)
    else:
        if rank < 1:
            raise ValueError(f'lora_rank {rank} vs >= 1 for new adapters')
        config = peft.LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=0.0, bias='none',
                                 target_modules='all-linear', task_type='CAUSAL_LM')
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(LORA_SEED)
            wrapped = peft.get_peft_model(model, config)
    if gradient_checkpointing:
        wrapped.enable_input_require_grads()  # checkpointed blocks need a grad-carrying input
    return wrapped

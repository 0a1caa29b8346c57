"""
A tiny randomly initialised policy, built offline: a small Granite config, a phrase tokenizer.

Nothing is downloaded. The tokenizer (``tokenizers`` WordLevel over a regex split) knows a
handful of phrases: the chat-format specials, and whole ``python`` tool calls in the Hermes
format the rollout engine parses (``<tool_call>{"name": "python", ...}</tool_call>``), one
per toy action. Everything else (the system prompt, task card, tool results) becomes
``<unk>`` pieces. A random model over this vocabulary writes a valid code-agent tool call
often enough to solve the toy task sometimes, which is what a learning test needs; it is a
plumbing and learning check, not a model that can drive the twin.

The folder it writes is an ordinary Hugging Face model folder: the trainer loads it by path
exactly as it loads a real model. The architecture is Granite (a Llama-style decoder) because
``AutoTokenizer`` loads a Granite folder's ``tokenizer.json`` as written, while a Qwen2 folder
gets its BPE pipeline rebuilt by ``Qwen2Tokenizer``.
"""

from __future__ import annotations

import importlib.resources
import json
from pathlib import Path
import re

SPECIAL_TOKENS = ('<|im_start|>', '<|im_end|>', '<unk>')
EOS_TOKEN = '<|im_end|>'


def python_call_text(code: str) -> str:
    """Return the Hermes text of one ``python(code)`` tool call, as the template renders it."""
    arguments = json.dumps({'code': code}, ensure_ascii=False)
    return f'<tool_call>\n{{"name": "python", "arguments": {arguments}}}\n</tool_call>'


def tiny_vocabulary(cells: tuple[str, ...]) -> list[str]:
    """Return the tokens of a tiny policy: the specials, then one whole tool call per cell."""
    return [*SPECIAL_TOKENS, *(python_call_text(code) for code in cells)]


def build_tiny_policy(folder: str | Path, cells: tuple[str, ...], *, seed: int = 0,
                      hidden_size: int = 32, layers: int = 2) -> Path:
    """
    Write a tiny random causal LM and its tokenizer to ``folder`` (no download).

    :param folder: the model folder to write (created).
    :param cells: the code of each whole-call token, e.g. ``("robo.press('red')",)``.
    :param seed: torch seed of the random weights.
    :param hidden_size: model width.
    :param layers: transformer layers.
    :returns: the folder.
    """
    import tokenizers
    from tokenizers import decoders, models, pre_tokenizers
    import torch
    from transformers import GraniteConfig, GraniteForCausalLM, PreTrainedTokenizerFast

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab = {token: index for index, token in enumerate(tiny_vocabulary(cells))}
    phrases = [re.escape(token) for token in vocab if token not in SPECIAL_TOKENS]
    backend = tokenizers.Tokenizer(models.WordLevel(vocab, unk_token='<unk>'))
    backend.pre_tokenizer = pre_tokenizers.Split(
        tokenizers.Regex('|'.join(phrases)), behavior='isolated')
    backend.decoder = decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token='<unk>', eos_token=EOS_TOKEN, pad_token=EOS_TOKEN,
        bos_token=None, additional_special_tokens=['<|im_start|>'])
    template = importlib.resources.files(__package__) / 'tiny_chat_template.jinja'
    tokenizer.chat_template = template.read_text(encoding='utf-8')
    tokenizer.save_pretrained(folder)
    config = GraniteConfig(
        vocab_size=len(vocab), hidden_size=hidden_size, intermediate_size=2 * hidden_size,
        num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2,
        max_position_embeddings=4096, tie_word_embeddings=True,
        eos_token_id=vocab[EOS_TOKEN], pad_token_id=vocab[EOS_TOKEN], bos_token_id=None)
    torch.manual_seed(seed)
    model = GraniteForCausalLM(config)
    model.save_pretrained(folder)
    return folder

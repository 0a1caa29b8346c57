"""
A model's own view of a request: its chat template and its tokenizer, without its weights.

``ModelTokenizer`` loads only the vocabulary of a GGUF (``vocab_only``: a fraction of a
second, no weights in memory), so ``pyrua prompt`` and the accounting tests can count a
prompt in the tokens the model reads. The server's backend uses the same object, so the
count and the served prompt cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, redirect_stderr
import io
import os
from pathlib import Path
from typing import Any

from .models import ensure_gguf, LocalModel, resolve_model
from .template import ChatTemplate


class ModelTokenizer:
    """
    Render and tokenise requests as a model does.

    :param model: a ``LocalModel`` or a name for ``resolve_model``.
    :param path: its GGUF file (``ensure_gguf`` by default).
    :param llm: an already loaded ``llama_cpp.Llama`` of that file (the server passes its
        own); a vocabulary-only one is loaded otherwise.
    """

    def __init__(self, model: str | LocalModel, path: Path | None = None, *,
                 llm: Any = None) -> None:
        from .backend import import_llama_cpp

        self.model = model if isinstance(model, LocalModel) else resolve_model(model)
        if llm is None:
            llama_cpp = import_llama_cpp()
            path = path or ensure_gguf(self.model)
            # verbose=False makes llama-cpp-python swap sys.stdout's file descriptor, which a
            # notebook's or pytest's stdout does not have: silence llama.cpp's log at fd 2.
            with _native_stderr_silenced():
                llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=True)
        self.llm = llm
        metadata = llm.metadata
        self.template = ChatTemplate(metadata.get('tokenizer.chat_template', ''),
                                     model_name=self.model.name,
                                     takes_images=self.model.takes_images)
        self._add_bos = metadata.get('tokenizer.ggml.add_bos_token', 'false') == 'true'

    def __repr__(self) -> str:
        return f'ModelTokenizer({self.model.name!r}, {self.template!r})'

    def tokenize(self, text: str) -> list[int]:
        """Return the model's tokens of a text (special tokens such as ``<|im_start|>`` parsed)."""
        return list(self.llm.tokenize(text.encode('utf-8'), add_bos=self._add_bos,
                                      special=True))

    def render(self, messages: Sequence[Mapping[str, Any]],
               tools: Sequence[Mapping[str, Any]] | None = None, *,
               force_tool: str | None = None) -> str:
        """Return the prompt text of a request (``ChatTemplate.render``)."""
        return self.template.render(messages, tools, force_tool=force_tool)

    def count(self, messages: Sequence[Mapping[str, Any]],
              tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        """Return the prompt tokens of a request, as the server reports ``prompt_tokens``."""
        return len(self.tokenize(self.render(messages, tools)))


@contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """Send what native code writes to file descriptor 2, and Python's stderr, nowhere."""
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        with redirect_stderr(io.StringIO()):
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)

"""
The model's state after a prompt prefix, kept on disk across requests, episodes and processes.

Every episode of an interface on a station opens with the same system prompt and tools; a
CPU model needs minutes to read them (the 1.5B model: ~5k tokens at ~23 tokens/s). The
server keeps the KV state of that prefix in a file and loads it instead of evaluating the
prefix again, in this process or the next one.

It uses llama.cpp's own session files (``llama_state_save_file`` / ``llama_state_load_file``,
``llama_save_session_file`` / ``llama_load_session_file`` in older builds): the KV cells
in use and the prefix's token ids, written and read by the runtime itself.
llama-cpp-python's ``LlamaDiskCache`` is not used: in 0.2.60 a hit *removes* the entry
(``cache.pop``), every completion stores a state keyed by the whole conversation, and its
``save_state`` copies the full ``n_ctx x n_vocab`` logits array (7.5 GB for Qwen at 12k
context).

A file is named by the SHA-256 of the model's identity (its catalogue sha256, or the path,
size and mtime of a file outside the catalogue), the chat template and the prefix's token
ids, so a new model file, a changed template or a changed prompt never loads a stale state.
Files live under ``<cache>/prefix/<model>/`` (``prefix_cache_dir``); after each write the
least recently used files are removed until the folder is under its cap.
"""

from __future__ import annotations

from collections.abc import Sequence
import ctypes
from dataclasses import dataclass
import hashlib
import logging
import os
from pathlib import Path
import time
from typing import Any

from .models import cache_dir, LocalModel

_LOG = logging.getLogger(__name__)
DEFAULT_CAPACITY_BYTES = 2 << 30
"""2 GiB: a 5k-token prefix is ~140 MB for the 1.5B model and ~60 MB for the 0.5B."""
MIN_PREFIX_TOKENS = 256
"""Shorter prefixes are evaluated again: a file costs more than reading them."""
SUFFIX = '.llama-state'


def prefix_cache_dir() -> Path:
    """Return the folder prefix states are kept in: ``prefix/`` beside the model cache."""
    if os.environ.get('PYRUA_PREFIX_CACHE'):
        return Path(os.environ['PYRUA_PREFIX_CACHE'])
    return cache_dir().parent / 'prefix'


def model_identity(model: LocalModel, path: Path) -> str:
    """Return what identifies the weights: the catalogue sha256, else the file's stamp."""
    if model.sha256:
        return model.sha256
    stat = Path(path).stat()
    return f'{Path(path).resolve()}:{stat.st_size}:{stat.st_mtime_ns}'


@dataclass(frozen=True, slots=True)
class PrefixHit:
    """What one lookup did: tokens restored from a file (0 on a miss) and how long it took."""

    tokens: int
    seconds: float
    path: Path | None

    def __repr__(self) -> str:
        where = self.path.name[:12] if self.path else 'miss'
        return f'PrefixHit({self.tokens} tokens, {self.seconds:.2f} s, {where})'


def _state_functions(llama_cpp: Any) -> tuple[Any, Any]:
    save = getattr(llama_cpp, 'llama_state_save_file', None) or llama_cpp.llama_save_session_file
    load = getattr(llama_cpp, 'llama_state_load_file', None) or llama_cpp.llama_load_session_file
    return save, load


class PrefixCache:
    """
    Prefix states of one loaded model, on disk.

    :param llama_cpp: the imported ``llama_cpp`` module.
    :param identity: ``model_identity(model, path)``.
    :param template: the chat template source (part of every key).
    :param folder: where the files go (``prefix_cache_dir() / model name`` by default).
    :param capacity_bytes: the folder's cap; least recently used files go first.
    """

    def __init__(self, llama_cpp: Any, identity: str, template: str, folder: Path, *,
                 capacity_bytes: int = DEFAULT_CAPACITY_BYTES) -> None:
        if capacity_bytes < 0:
            raise ValueError(f'capacity_bytes {capacity_bytes} vs >= 0')
        self._save, self._load = _state_functions(llama_cpp)
        self._identity = hashlib.sha256(f'{identity}\n{template}'.encode()).hexdigest()
        self.folder = Path(folder)
        self.capacity_bytes = capacity_bytes
        self.saved = 0
        self.loaded = 0

    def __repr__(self) -> str:
        return (f'PrefixCache({self.folder}, {len(self.files())} files, '
                f'cap {self.capacity_bytes / 2**20:.0f} MiB)')

    def path_for(self, tokens: Sequence[int]) -> Path:
        """Return the file that holds the state after exactly ``tokens``."""
        digest = hashlib.sha256(self._identity.encode())
        digest.update(b''.join(int(t).to_bytes(4, 'little', signed=True) for t in tokens))
        return self.folder / f'{digest.hexdigest()[:40]}{SUFFIX}'

    def files(self) -> list[Path]:
        """Return the state files, least recently used first."""
        if not self.folder.is_dir():
            return []
        found = [p for p in self.folder.iterdir() if p.name.endswith(SUFFIX)]
        return sorted(found, key=lambda p: p.stat().st_mtime_ns)

    def load(self, llm: Any, tokens: Sequence[int]) -> PrefixHit:
        """
        Restore the state after ``tokens`` into ``llm`` if a file holds it.

        On a hit ``llm`` stands exactly as if it had evaluated ``tokens`` (its token ids and
        count set), so its own prefix matching evaluates only what follows.
        """
        started = time.monotonic()
        path = self.path_for(tokens)
        if not path.is_file():
            return PrefixHit(0, time.monotonic() - started, None)
        capacity = len(tokens) + 1
        out = (ctypes.c_int32 * capacity)()
        count = ctypes.c_size_t(0)
        ok = self._load(llm.ctx, str(path).encode(), out, capacity, ctypes.byref(count))
        restored = list(out[:count.value])
        if not ok or restored != [int(t) for t in tokens]:
            _LOG.warning('prefix state %s did not load (%s); removing it', path.name,
                         'runtime refused it' if not ok else 'token ids differ')
            path.unlink(missing_ok=True)
            llm.reset()
            return PrefixHit(0, time.monotonic() - started, None)
        llm.n_tokens = len(restored)
        llm.input_ids[:len(restored)] = restored
        os.utime(path)  # most recently used
        self.loaded += 1
        return PrefixHit(len(restored), time.monotonic() - started, path)

    def save(self, llm: Any, tokens: Sequence[int]) -> Path | None:
        """
        Write ``llm``'s state, which must have evaluated exactly ``tokens``, then trim the folder.

        :returns: the file written, or None when the cap is 0 or the write failed (the
            request goes on either way: a cache never fails a request).
        """
        if self.capacity_bytes == 0:
            return None
        if list(llm.input_ids[:llm.n_tokens]) != [int(t) for t in tokens]:
            raise ValueError(f'save of a {len(tokens)}-token prefix vs a model that holds '
                             f'{llm.n_tokens} other tokens; evaluate the prefix first')
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path_for(tokens)
        partial = path.with_name(f'{path.name}.{os.getpid()}.part')
        ids = (ctypes.c_int32 * len(tokens))(*[int(t) for t in tokens])
        try:
            ok = self._save(llm.ctx, str(partial).encode(), ids, len(tokens))
            if not ok:
                raise OSError('the runtime could not write the state file')
            os.replace(partial, path)
        except OSError as exc:
            _LOG.warning('prefix state not saved to %s: %s', self.folder, exc)
            partial.unlink(missing_ok=True)
            return None
        self.saved += 1
        self.trim()
        return path

    def trim(self) -> list[Path]:
        """Remove least recently used files until the folder is under the cap; return them."""
        files = self.files()
        sizes = {p: p.stat().st_size for p in files}
        total = sum(sizes.values())
        removed = []
        for path in files:
            if total <= self.capacity_bytes:
                break
            path.unlink(missing_ok=True)
            total -= sizes[path]
            removed.append(path)
        return removed

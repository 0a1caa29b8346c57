"""
Where the policy's weights come from: a Hugging Face folder, a GGUF file, or a local model.

``model:`` in a training spec may be

- a Hugging Face model folder (``config.json``, weights, tokenizer files), as saved by
  ``save_pretrained`` (every checkpoint of ``pyrua train`` is one);
- a ``.gguf`` file (or a folder holding exactly one): transformers reads it with
  ``gguf_file=`` (the ``gguf`` package) and dequantises it to torch weights; the tokenizer
  and chat template come from the same file;
- ``local:<name>``: a model of the ``pyrua_local`` catalogue (e.g.
  ``local:qwen2.5-coder-0.5b``), whose GGUF ``pyrua_local.models.ensure_gguf`` joins from its
  installed weight packages and verifies.

Nothing is downloaded in any case.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pyrua_primitives.errors import MissingDependency

LOCAL_PREFIX = 'local:'


@dataclass(frozen=True, slots=True)
class ModelSource:
    """
    A resolved policy source: the folder to load from and, for GGUF, the file in it.

    :param folder: what ``from_pretrained`` gets.
    :param gguf_file: the GGUF file name inside ``folder`` (None: a Hugging Face folder).
    """

    folder: Path
    gguf_file: str | None = None

    def __repr__(self) -> str:
        return f'ModelSource({self.path})'

    @property
    def path(self) -> Path:
        """Return the GGUF file, or the folder."""
        return self.folder / self.gguf_file if self.gguf_file else self.folder

    def load_kwargs(self) -> dict[str, str]:
        """Return the ``from_pretrained`` keywords that pick the GGUF file (if any)."""
        if self.gguf_file is None:
            return {}
        try:
            import gguf  # noqa: F401  (transformers needs it to read the file)
        except ImportError:
            raise MissingDependency(f'loading {self.path} needs the gguf package vs not '
                                    "installed; pip install gguf (in the 'train' extra)"
                                    ) from None
        return {'gguf_file': self.gguf_file}


def resolve_source(model: str | Path) -> ModelSource:
    """
    Resolve a spec's ``model`` to what transformers loads.

    :param model: a model folder, a ``.gguf`` file or folder, or ``local:<name>``.
    :raises FileNotFoundError: when it is none of those, saying what each needs.
    :raises MissingDependency: for ``local:`` without ``pyrua_local`` installed.
    """
    text = str(model)
    if text.startswith(LOCAL_PREFIX):
        try:
            from pyrua_local.models import ensure_gguf
        except ImportError:
            raise MissingDependency(f'model {text!r} needs pyrua_local vs not installed; '
                                    "pip install -e 'src/pyrua_local[qwen-0.5b]'") from None
        path = ensure_gguf(text)
        return ModelSource(path.parent, path.name)
    path = Path(text)
    if path.is_file() and path.suffix == '.gguf':
        return ModelSource(path.parent, path.name)
    if (path / 'config.json').is_file():
        return ModelSource(path)
    if path.is_dir():
        found = sorted(path.glob('*.gguf'))
        if len(found) == 1:
            return ModelSource(path, found[0].name)
        if len(found) > 1:
            raise FileNotFoundError(f'model folder {text!r} holds {len(found)} .gguf files '
                                    'vs one; name the file: model: <folder>/<file>.gguf')
    raise FileNotFoundError(f'model path {text!r} has no config.json vs a Hugging Face '
                            'model folder, a .gguf file, or local:<name> (pyrua_local); '
                            'nothing is downloaded')

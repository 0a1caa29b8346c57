"""The catalogue and ensure_gguf: chunks joined in order, checked, never imported."""

import hashlib
import sys

from pyrua_local import ensure_gguf, MissingModel, ModelCorrupt, resolve_model
from pyrua_local.models import LocalModel, MODELS
import pytest


@pytest.fixture
def chunked(tmp_path, monkeypatch):
    """Two installed 'packages' holding three chunks; importing them would fail loudly."""
    site = tmp_path / 'site'
    parts = [b'GGUF' + bytes(range(200)), b'middle' * 50, b'tail']
    for index, names in enumerate([('a.bin', 'b.bin'), ('c.bin',)]):
        package = site / f'fake_part{index + 1}'
        (package / 'data').mkdir(parents=True)
        (package / '__init__.py').write_text('raise RuntimeError("imported")\n')
        for name in names:
            (package / 'data' / name).write_bytes(parts.pop(0))
    monkeypatch.syspath_prepend(str(site))
    whole = (b'GGUF' + bytes(range(200))) + b'middle' * 50 + b'tail'
    model = LocalModel(name='fake', title='Fake', extra='fake',
                       packages=('fake_part1', 'fake_part2'), member=None,
                       sha256=hashlib.sha256(whole).hexdigest(), size_bytes=len(whole),
                       context_tokens=512, quantisation='Q0')
    return model, whole, tmp_path / 'cache'


def test_chunks_are_joined_in_order_verified_and_not_imported(chunked):
    model, whole, cache = chunked
    path = ensure_gguf(model, cache=cache)
    assert path.read_bytes() == whole
    assert 'fake_part1' not in sys.modules
    assert (cache / f'{path.name}.verified').is_file()
    assert ensure_gguf(model, cache=cache) == path  # second call: the marker, no re-join


def test_a_changed_file_is_joined_again_and_a_bad_chunk_is_refused(chunked, tmp_path):
    model, whole, cache = chunked
    path = ensure_gguf(model, cache=cache)
    path.write_bytes(b'x' * len(whole))  # the joined copy went bad: joined again
    assert ensure_gguf(model, cache=cache).read_bytes() == whole
    chunk = tmp_path / 'site' / 'fake_part2' / 'data' / 'c.bin'
    chunk.write_bytes(b'TAIL')
    path.unlink()
    with pytest.raises(ModelCorrupt, match='vs the catalogue'):
        ensure_gguf(model, cache=cache)
    assert not any(p.name.endswith('.partial') for p in cache.iterdir())


def test_a_missing_package_names_the_pip_command(tmp_path):
    model = LocalModel(name='absent', title='Absent', extra='absent',
                       packages=('no_such_weights_pkg',), member='m.gguf', sha256='0' * 64,
                       size_bytes=1, context_tokens=512, quantisation='Q0')
    with pytest.raises(MissingModel, match=r'pyrua_local\[absent\]'):
        ensure_gguf(model, cache=tmp_path)


def test_names_resolve_and_unknown_ones_are_refused_with_the_list():
    assert resolve_model('local').name == 'qwen2.5-coder-0.5b'
    assert resolve_model('local:smollm2-135m') is MODELS['smollm2-135m']
    with pytest.raises(ValueError, match="did you mean 'local:qwen2.5-coder-1.5b'"):
        resolve_model('local:qwen2.5-coder')


def test_a_gguf_file_outside_the_catalogue_is_served_as_it_is(tmp_path):
    checkpoint = tmp_path / 'iter-0003.gguf'
    with pytest.raises(MissingModel, match='does not exist'):
        ensure_gguf(f'local:{checkpoint}')
    checkpoint.write_bytes(b'GGUF')
    model = resolve_model(f'local:{checkpoint}')
    assert model.name == 'iter-0003' and model.file == str(checkpoint)
    assert ensure_gguf(model) == checkpoint

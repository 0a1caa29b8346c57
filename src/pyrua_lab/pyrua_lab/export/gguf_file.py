"""
A trained checkpoint as a GGUF file, so the local serving path serves it like the base model.

``export_gguf`` writes a Qwen2-family Hugging Face checkpoint (``pyrua train``'s
``checkpoints/iter-NNNN/``: ``config.json`` + ``model.safetensors``) as one GGUF file that
llama.cpp loads: the architecture's hyperparameters from ``config.json``, every tensor under
its llama.cpp name (``gguf.get_tensor_name_map``), and the tokenizer, chat template and
special-token ids copied from a GGUF of the same vocabulary (the base model the run started
from). Weights are written unquantised: ``f32`` (exact: the trained weights as they are) or
``f16`` (half the size; an Adam step of 1e-6 can fall below float16's spacing, so small
updates may round away). llama.cpp's ``llama-quantize`` can quantise the file further.

Only ``Qwen2ForCausalLM`` is supported (the Qwen2.5-Coder models of the local catalogue);
another architecture is refused with the supported list.
"""

from __future__ import annotations

from dataclasses import dataclass
import json
import os
from pathlib import Path
from typing import Any

ARCHITECTURES = {'Qwen2ForCausalLM': 'qwen2'}
DTYPES = ('f32', 'f16')
# Keys copied from the base GGUF: the tokenizer and what it needs; the rest is written anew.
_COPIED_PREFIXES = ('tokenizer.',)


@dataclass(frozen=True, slots=True)
class GgufExport:
    """One written GGUF file: its path, tensor count, size and weight type."""

    path: Path
    tensors: int
    size_bytes: int
    dtype: str

    def __repr__(self) -> str:
        return (f'GgufExport({self.path}, {self.tensors} tensors, {self.dtype}, '
                f'{self.size_bytes / 1e6:.0f} MB)')


def _rope_theta(config: dict[str, Any]) -> float:
    if 'rope_theta' in config:
        return float(config['rope_theta'])
    return float((config.get('rope_parameters') or {}).get('rope_theta', 10000.0))


def _copy_field(writer: Any, field: Any) -> None:
    import gguf

    kind = field.types[0]
    if kind == gguf.GGUFValueType.ARRAY:
        writer.add_key_value(field.name, field.contents(), kind, sub_type=field.types[-1])
    else:
        writer.add_key_value(field.name, field.contents(), kind)


def export_gguf(checkpoint: str | os.PathLike[str], out: str | os.PathLike[str], *,
                tokenizer_gguf: str | os.PathLike[str], dtype: str = 'f32') -> GgufExport:
    """
    Write ``checkpoint`` (a Hugging Face folder) as the GGUF file ``out``.

    :param checkpoint: the model folder (``config.json``, ``*.safetensors``).
    :param out: the GGUF file to write (must not exist).
    :param tokenizer_gguf: a GGUF of the same vocabulary (the base model): its tokenizer,
        chat template and special tokens are copied.
    :param dtype: ``'f32'`` or ``'f16'`` for the 2-D weights (norms and biases stay f32).
    :returns: what was written.
    :raises ValueError: for another architecture, a vocabulary mismatch, an unmapped tensor
        or an unknown dtype.
    :raises FileExistsError: when ``out`` exists.
    """
    import gguf
    import numpy as np
    from safetensors.numpy import load_file

    checkpoint, out = Path(checkpoint), Path(out)
    if dtype not in DTYPES:
        raise ValueError(f'dtype {dtype!r} vs {DTYPES}; f32 keeps the trained weights exactly')
    if out.exists():
        raise FileExistsError(f'{out} exists vs a new file; choose another --out')
    config = json.loads((checkpoint / 'config.json').read_text())
    architecture = (config.get('architectures') or ['?'])[0]
    if architecture not in ARCHITECTURES:
        raise ValueError(f'{checkpoint}: architecture {architecture!r} vs the supported '
                         f'{sorted(ARCHITECTURES)}; export another model with llama.cpp '
                         'convert_hf_to_gguf.py')
    arch = ARCHITECTURES[architecture]
    base = gguf.GGUFReader(str(tokenizer_gguf))
    tokens = base.fields.get('tokenizer.ggml.tokens')
    if tokens is None or len(tokens.data) != int(config['vocab_size']):
        found = 'none' if tokens is None else len(tokens.data)
        raise ValueError(f'{tokenizer_gguf}: {found} tokenizer tokens vs vocab_size '
                         f'{config["vocab_size"]} of {checkpoint}; give the GGUF the run '
                         'started from')
    weights: dict[str, np.ndarray] = {}
    for file in sorted(checkpoint.glob('*.safetensors')):
        weights.update(load_file(file))
    if not weights:
        raise ValueError(f'{checkpoint} holds no *.safetensors vs a saved model folder')
    blocks = int(config['num_hidden_layers'])
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.QWEN2, blocks)
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(out), arch)
    try:
        writer.add_name(f'pyrua train {checkpoint.name}')
        writer.add_file_type(gguf.LlamaFileType.ALL_F32 if dtype == 'f32'
                             else gguf.LlamaFileType.MOSTLY_F16)
        writer.add_block_count(blocks)
        writer.add_context_length(int(config.get('max_position_embeddings', 32768)))
        writer.add_embedding_length(int(config['hidden_size']))
        writer.add_feed_forward_length(int(config['intermediate_size']))
        writer.add_head_count(int(config['num_attention_heads']))
        writer.add_head_count_kv(int(config.get('num_key_value_heads',
                                                config['num_attention_heads'])))
        writer.add_rope_freq_base(_rope_theta(config))
        writer.add_layer_norm_rms_eps(float(config['rms_norm_eps']))
        for field in base.fields.values():
            if field.name.startswith(_COPIED_PREFIXES):
                _copy_field(writer, field)
        for name in sorted(weights):
            target = names.get_name(name, try_suffixes=('.weight', '.bias'))
            if target is None:
                raise ValueError(f'{checkpoint}: tensor {name!r} has no llama.cpp name vs '
                                 f'the {arch} tensor map; the checkpoint is not a plain '
                                 f'{architecture}')
            array = weights[name].astype(np.float32)
            if dtype == 'f16' and array.ndim == 2:
                array = array.astype(np.float16)
            writer.add_tensor(target, array)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    except BaseException:
        writer.close()
        out.unlink(missing_ok=True)
        raise
    writer.close()
    return GgufExport(path=out, tensors=len(weights), size_bytes=out.stat().st_size,
                      dtype=dtype)


def export_checkpoint(checkpoint: str | os.PathLike[str], out: str | os.PathLike[str], *,
                      dtype: str = 'f32',
                      tokenizer_gguf: str | os.PathLike[str] | None = None) -> GgufExport:
    """
    Write a ``pyrua train`` checkpoint as a GGUF file the local serving path loads.

    :param checkpoint: ``OUT/checkpoints/iter-NNNN/``.
    :param out: the GGUF file to write.
    :param dtype: ``'f32'`` (exact) or ``'f16'``.
    :param tokenizer_gguf: the GGUF to copy the tokenizer from (default: the one the run
        started from, recorded in the checkpoint's ``state.json``).
    :raises FileNotFoundError: for a folder that is not a checkpoint, or a run that did not
        start from a GGUF and no ``tokenizer_gguf``.
    """
    checkpoint = Path(checkpoint)
    state_file = checkpoint / 'state.json'
    if not (checkpoint / 'config.json').is_file():
        raise FileNotFoundError(f'{checkpoint} has no config.json vs a checkpoint of pyrua '
                                'train (OUT/checkpoints/iter-NNNN/)')
    state = json.loads(state_file.read_text()) if state_file.is_file() else {}
    source = tokenizer_gguf or state.get('tokenizer_gguf')
    if not source or not Path(source).is_file():
        raise FileNotFoundError(f'{checkpoint}: tokenizer GGUF {source!r} vs an existing '
                                'file; the run did not start from a GGUF (or it moved): pass '
                                '--tokenizer-gguf BASE.gguf')
    return export_gguf(checkpoint, out, tokenizer_gguf=source, dtype=dtype)

"""`pyrua train` from a GGUF file; its checkpoint exported to GGUF and served by llama.cpp."""

import json

import pytest


@pytest.fixture(scope='module')
def qwen_gguf():
    """Return the Qwen2.5-Coder-0.5B GGUF (its tokenizer and chat template are real)."""
    pytest.importorskip('gguf', reason='reading GGUF needs the gguf package (train extra)')
    models = pytest.importorskip('pyrua_local.models', reason='pyrua_local is not installed')
    try:
        return models.ensure_gguf('qwen2.5-coder-0.5b')
    except models.MissingModel as exc:
        pytest.skip(f'the 0.5B weight packages are not installed: {exc}')


@pytest.fixture(scope='module')
def small_qwen_gguf(qwen_gguf, tmp_path_factory):
    """Write a small random Qwen2 with the real vocabulary as GGUF (the real model's format)."""
    from pyrua_lab.export.gguf_file import export_gguf
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=151936, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=4096, tie_word_embeddings=False,
                         rms_norm_eps=1e-6, eos_token_id=151645)
    model = Qwen2ForCausalLM(config)
    folder = tmp_path_factory.mktemp('small-qwen')
    model.save_pretrained(folder / 'hf')
    return export_gguf(folder / 'hf', folder / 'small-qwen.gguf', tokenizer_gguf=qwen_gguf).path


def _logits(tokens, *, torch_folder=None, gguf_path=None):
    import numpy as np

    if gguf_path is not None:
        from llama_cpp import Llama

        # verbose: llama_cpp's quiet mode swaps sys.stdout's fileno, which pytest's capture lacks
        llm = Llama(str(gguf_path), logits_all=True, verbose=True, n_ctx=64, n_threads=1)
        llm.eval(tokens)
        return np.array(llm.scores[:len(tokens)])
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(torch_folder, dtype=torch.float32)
    with torch.no_grad():
        return model(torch.tensor([tokens])).logits[0].numpy()


@pytest.mark.slow
def test_training_starts_from_a_gguf_and_its_checkpoint_serves_as_gguf(
        small_qwen_gguf, tmp_path, capsys):
    pytest.importorskip('llama_cpp', reason='serving a GGUF needs llama-cpp-python')
    import numpy as np
    from pyrua_agent.cli import main
    from pyrua_lab.training import GrpoTrainer, TrainConfig

    config = TrainConfig(model=str(small_qwen_gguf), world='toy', tasks=['press_red'],
                         layouts='0-1', instances_per_iteration=2, rollouts_per_instance=2,
                         iterations=1, max_cells=1, max_llm_calls=1, max_new_tokens=4,
                         parallel_episodes=2)
    trainer = GrpoTrainer(config, tmp_path / 'run')
    assert trainer.policy.source.gguf_file == small_qwen_gguf.name
    assert trainer.policy.tokenizer.chat_template, 'the chat template comes from the GGUF'
    record = trainer.run()[0]
    assert record['episodes'] == 4 and record['tokens_generated'] > 0
    checkpoint = tmp_path / 'run' / 'checkpoints' / 'iter-0001'
    state = json.loads((checkpoint / 'state.json').read_text())
    assert state == {'iteration': 1, 'tokenizer_gguf': str(small_qwen_gguf)}

    out = tmp_path / 'served.gguf'
    assert main(['export', str(checkpoint), '--format', 'gguf', '--out', str(out)]) == 0
    assert 'GgufExport(' in capsys.readouterr().out
    tokens = trainer.policy.render([{'role': 'user', 'content': 'press the red button'}])
    served = _logits(tokens, gguf_path=out)
    trained = _logits(tokens, torch_folder=checkpoint)
    assert np.abs(served - trained).max() < 1e-3 * np.abs(trained).max() + 1e-4
    assert (served.argmax(-1) == trained.argmax(-1)).all()
    assert main(['export', str(checkpoint), '--format', 'gguf', '--out', str(out)]) == 2
    assert 'exists vs a new file' in capsys.readouterr().err


def test_a_model_that_is_neither_folder_gguf_nor_local_is_refused(tmp_path):
    from pyrua_lab.training.model_source import resolve_source

    with pytest.raises(FileNotFoundError, match=r'a \.gguf file, or local:<name>'):
        resolve_source(tmp_path / 'nothing')
    (tmp_path / 'a.gguf').write_bytes(b'')
    (tmp_path / 'b.gguf').write_bytes(b'')
    with pytest.raises(FileNotFoundError, match='holds 2 .gguf files vs one'):
        resolve_source(tmp_path)
    assert resolve_source(tmp_path / 'a.gguf').gguf_file == 'a.gguf'

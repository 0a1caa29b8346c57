"""
Errors of the local model provider.

Hierarchy::

    LocalModelError(Exception)
    +-- MissingModel       a model's weight package is not installed (the message: pip)
    +-- ModelCorrupt       the joined bytes do not match the catalogue's size and sha256
    +-- MissingRuntime     llama-cpp-python is not installed
    +-- ServerStartFailed  the server process did not answer in time; the message has its log
"""


class LocalModelError(Exception):
    """Base class of every error raised by ``pyrua_local``."""


class MissingModel(LocalModelError, ImportError):
    """A model's weight package is not installed."""


class ModelCorrupt(LocalModelError):
    """A model file does not match the catalogue."""


class MissingRuntime(LocalModelError, ImportError):
    """The llama.cpp runtime (``llama_cpp``) is not installed."""


class ServerStartFailed(LocalModelError):
    """The local server process exited or did not answer before its deadline."""

"""
Errors raised by the primitive library for misuse (never for a physical outcome).

Hierarchy::

    PrimitiveError(Exception)
    +-- MissingDependency      an optional extra (torch, transformers) is not installed
"""


class PrimitiveError(Exception):
    """Base class of every error raised by ``pyrua_primitives``."""


class MissingDependency(PrimitiveError, ImportError):
    """An optional dependency is missing; the message gives the pip command."""

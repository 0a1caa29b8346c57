"""
Errors raised by the LLM endpoint client, a branch of ``pyrua_agent.errors.AgentError``.

Hierarchy::

    AgentError(Exception)
    +-- LLMError
        +-- EndpointConfigError     the endpoint configuration cannot work (e.g. no API key)
        +-- EndpointUnavailable     retries exhausted on 429/5xx/timeouts/connection errors
        |                           -> episode end reason 'infra_error'
        +-- EndpointRejected        a non-retryable 4xx (auth, unknown model, bad request)
            |                       -> episode end reason 'infra_error'
            +-- ContextOverflow     the request exceeds the model's context window
                                    -> episode end reason 'context_overflow'

Each error carries the infrastructure events (failed attempts) that preceded it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import AgentError

if TYPE_CHECKING:
    from ..accounting import InfraEvent


class LLMError(AgentError):
    """Base class of the errors raised by ``pyrua_agent.llm``."""

    def __init__(self, message: str, events: tuple[InfraEvent, ...] = ()) -> None:
        super().__init__(message)
        self.events = events


class EndpointConfigError(LLMError):
    """The endpoint configuration cannot work; the message says which setting to change."""


class EndpointUnavailable(LLMError):
    """Retries ran out on rate limits, server errors, timeouts or connection errors."""


class EndpointRejected(LLMError):
    """The endpoint refused the request with a status that retrying cannot fix."""

    def __init__(self, message: str, events: tuple[InfraEvent, ...] = (),
                 status: int | None = None) -> None:
        super().__init__(message, events)
        self.status = status


class ContextOverflow(EndpointRejected):
    """The request is longer than the model's context window."""

"""
Planners by name: the code agent, the tool-calling baseline and its variant, script, replay.

Every planner runs through the same episode loop (``pyrua_agent.episode.run_episode``), so
all produce the same episode record. ``make_planner`` is the one place a name becomes a
planner; ``PLANNERS`` lists the names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pyrua_primitives.naming import unknown_name

from .base import Cell, Finish, Planner, TaskCard
from .code_agent import CodeAgentPlanner
from .conversation import ConversationPlanner
from .replay import ReplayPlanner
from .script import ScriptPlanner
from .tool_calling import ToolCallingPlanner
from ..llm import EndpointConfig

Primitives = Mapping[str, Callable[..., Any]]


def _llm_inputs(name: str, primitives: Primitives | None,
                endpoint: EndpointConfig | None) -> tuple[EndpointConfig, Primitives]:
    if primitives is None or endpoint is None:
        raise ValueError(f'planner {name!r} needs primitives and an endpoint vs '
                         f'primitives={primitives is not None}, endpoint={endpoint is not None};'
                         ' pass both')
    return endpoint, primitives


def _code(primitives, endpoint, source, options) -> Planner:
    return CodeAgentPlanner(*_llm_inputs('code', primitives, endpoint), **options)


def _tools(primitives, endpoint, source, options) -> Planner:
    return ToolCallingPlanner(*_llm_inputs('tools', primitives, endpoint),
                              images='after_motion', **options)


def _tools_on_request(primitives, endpoint, source, options) -> Planner:
    return ToolCallingPlanner(*_llm_inputs('tools_on_request', primitives, endpoint),
                              images='on_request', **options)


def _file(name: str, source: str | Path | None, options: Mapping[str, Any]) -> Path:
    if source is None:
        raise ValueError(f'planner {name!r} needs source (a file path) vs None; pass the file')
    if options:
        raise ValueError(f'planner {name!r} takes no options vs {sorted(options)}')
    return Path(source)


def _script(primitives, endpoint, source, options) -> Planner:
    return ScriptPlanner.from_file(_file('script', source, options))


def _replay(primitives, endpoint, source, options) -> Planner:
    return ReplayPlanner.from_file(_file('replay', source, options))


PLANNERS: dict[str, Callable[..., Planner]] = {
    'code': _code,
    'replay': _replay,
    'script': _script,
    'tools': _tools,
    'tools_on_request': _tools_on_request,
}


def make_planner(name: str, *, primitives: Primitives | None = None,
                 endpoint: EndpointConfig | None = None, source: str | Path | None = None,
                 **options: Any) -> Planner:
    """
    Build a planner by name.

    :param name: one of ``PLANNERS``: ``'code'``, ``'tools'`` and ``'tools_on_request'``
        call an LLM; ``'script'`` runs a ``# %%`` file; ``'replay'`` a JSONL transcript.
    :param primitives: the episode's primitives (LLM planners).
    :param endpoint: the endpoint and model (LLM planners).
    :param source: the file to run (script and replay planners).
    :param options: keyword options of the LLM planner's class, e.g. ``on_call``,
        ``prices``, ``image_detail``, ``cameras``.
    :returns: the planner.
    :raises ValueError: for an unknown name or a missing input.
    """
    if name not in PLANNERS:
        raise ValueError(unknown_name('planner', name, PLANNERS))
    return PLANNERS[name](primitives, endpoint, source, options)


__all__ = [
    'Cell',
    'CodeAgentPlanner',
    'ConversationPlanner',
    'Finish',
    'PLANNERS',
    'Planner',
    'ReplayPlanner',
    'ScriptPlanner',
    'TaskCard',
    'ToolCallingPlanner',
    'make_planner',
]

"""
Planners by name: the code agent, the tool-calling baseline and its variant, script, replay.

Every planner runs through the same episode loop (``pyrua_agent.episode.run_episode``), so
all produce the same episode record. ``make_planner`` is the one place a name becomes a
planner; ``PLANNERS`` is the registry (whether a planner needs an endpoint or reads a file,
an LLM interface's prompt files, a tool-calling kind's image mode), which the CLI's choices,
the agent node's config, the evaluation specs, ``EpisodeSpec`` and the system prompt
(``interface_prompt``) read. No list of interfaces or image modes stands beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
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
from ..prompt import PromptFiles, system_prompt

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
    return _tool_calling('tools', primitives, endpoint, options)


def _tools_on_request(primitives, endpoint, source, options) -> Planner:
    return _tool_calling('tools_on_request', primitives, endpoint, options)


def _tool_calling(name, primitives, endpoint, options) -> Planner:
    return ToolCallingPlanner(*_llm_inputs(name, primitives, endpoint),
                              images=PLANNERS[name].images, **options)


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


@dataclass(frozen=True, slots=True)
class PlannerKind:
    """
    One registered planner: how to build it and what it needs.

    :param build: ``(primitives, endpoint, source, options) -> Planner``.
    :param needs_endpoint: it calls an LLM (needs an endpoint; its calls are recorded).
    :param reads_file: it reads its cells from a file (``source``).
    :param summary: one line for help texts.
    :param prompt: the LLM interface's prompt files (None for a planner that asks no model).
    :param fence_prompt: the code interface's prompt files for the fenced-block reply form
        (``EndpointConfig.code_form == 'fence'``); None where the interface has no such form.
    :param images: the tool-calling planner's image mode, ``'after_motion'`` (pictures after
        each motion) or ``'on_request'`` (a ``show`` tool); None for the others.
    :raises ValueError: for an LLM planner without prompt files, or prompt files or an image
        mode on a planner that asks no model.
    """

    build: Callable[..., Planner]
    needs_endpoint: bool
    reads_file: bool
    summary: str
    prompt: PromptFiles | None = None
    images: str | None = None
    fence_prompt: PromptFiles | None = None

    def __post_init__(self) -> None:
        if self.needs_endpoint != (self.prompt is not None):
            raise ValueError(f'prompt {self.prompt} vs needs_endpoint={self.needs_endpoint}: '
                             'an LLM planner (and only one) carries its PromptFiles')
        if self.images is not None and not self.needs_endpoint:
            raise ValueError(f'images {self.images!r} on a planner that asks no model; drop it')


PLANNERS: dict[str, PlannerKind] = {
    'code': PlannerKind(build=_code, needs_endpoint=True, reads_file=False,
                        summary='an LLM writes Python cells (the code interface)',
                        prompt=PromptFiles(intro='intro_code.md', notes='notes_code.md',
                                           example='example_code.md',
                                           reply='reply_code_tool.md'),
                        fence_prompt=PromptFiles(intro='intro_code_fence.md',
                                                 notes='notes_code.md',
                                                 example='example_code.md',
                                                 reply='reply_code_fence.md')),
    'replay': PlannerKind(build=_replay, needs_endpoint=False, reads_file=True,
                          summary='re-runs recorded cells exactly (transcript.jsonl, # %% file, '
                                  'run folder)'),
    'script': PlannerKind(build=_script, needs_endpoint=False, reads_file=True,
                          summary='runs a # %% file (default: the bundled reference program)'),
    'tools': PlannerKind(build=_tools, needs_endpoint=True, reads_file=False,
                         summary='an LLM calls one tool per primitive, pictures after motions',
                         prompt=PromptFiles(intro='intro_tools.md', notes='notes_tools_auto.md',
                                            example='example_tools.md'),
                         images='after_motion'),
    'tools_on_request': PlannerKind(build=_tools_on_request, needs_endpoint=True,
                                    reads_file=False,
                                    summary='tool calling, pictures only on request',
                                    prompt=PromptFiles(intro='intro_tools.md',
                                                       notes='notes_tools_on_request.md',
                                                       example='example_tools.md'),
                                    images='on_request'),
}
"""The planner registry: name -> what builds it and what it needs."""


def needs_endpoint(name: str) -> bool:
    """
    Return True when planner ``name`` calls an LLM endpoint.

    :raises ValueError: for an unknown name, listing the valid ones.
    """
    return _kind(name).needs_endpoint


def needs_source(name: str) -> bool:
    """
    Return True when planner ``name`` reads its cells from a file.

    :raises ValueError: for an unknown name, listing the valid ones.
    """
    return _kind(name).reads_file


def interface_prompt(name: str, api_reference: str, station_facts: str, *,
                     form: str = 'tool', worked_example: bool = True) -> str:
    """
    Return the system prompt of LLM planner ``name`` (its kind's prompt files).

    :param name: an LLM planner of ``PLANNERS``: ``'code'``, ``'tools'``, ``'tools_on_request'``.
    :param api_reference: the generated API reference (``prompt.reference``).
    :param station_facts: the episode's station facts (``prompt.station_facts``).
    :param form: ``'tool'`` (calls) or ``'fence'`` (the code interface's fenced blocks).
    :param worked_example: end with the interface's worked example (``PromptVariant``).
    :raises ValueError: for an unknown name or a planner that asks no model, listing the
        LLM planners, or a form the interface does not have.
    """
    kind = PLANNERS.get(name)
    if kind is None or kind.prompt is None:
        raise ValueError(unknown_name('LLM interface', name,
                                      [n for n, k in PLANNERS.items() if k.prompt]))
    if form == 'fence':
        if kind.fence_prompt is None:
            raise ValueError(f"form 'fence' vs interface {name!r}, which is read in tool calls "
                             "only; use form='tool'")
        return system_prompt(kind.fence_prompt, api_reference, station_facts,
                             worked_example=worked_example)
    if form != 'tool':
        raise ValueError(f"form {form!r} vs 'tool' or 'fence'")
    return system_prompt(kind.prompt, api_reference, station_facts,
                         worked_example=worked_example)


def _kind(name: str) -> PlannerKind:
    if name not in PLANNERS:
        raise ValueError(unknown_name('planner', name, PLANNERS))
    return PLANNERS[name]


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
        ``prices``, ``image_detail``, ``cameras``, ``prompt`` (a ``PromptVariant``).
    :returns: the planner.
    :raises ValueError: for an unknown name or a missing input.
    """
    return _kind(name).build(primitives, endpoint, source, options)


__all__ = [
    'Cell',
    'CodeAgentPlanner',
    'ConversationPlanner',
    'Finish',
    'PLANNERS',
    'Planner',
    'PlannerKind',
    'ReplayPlanner',
    'ScriptPlanner',
    'TaskCard',
    'ToolCallingPlanner',
    'interface_prompt',
    'make_planner',
    'needs_endpoint',
    'needs_source',
]

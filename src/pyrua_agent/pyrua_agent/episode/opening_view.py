"""
What a model reads at the start of an episode, exactly: ``pyrua prompt``.

``opening_view`` opens the spec's world, builds its planner from the registry (the same
code path as an episode), and returns the tools and first messages the planner would send,
as the endpoint would receive them (a text-only model's images already replaced by their
labels), with the prompt's token count in the model's own tokenizer where it has one
(``local`` models) and in o200k otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
import json
from typing import Any


@dataclass(frozen=True)
class OpeningView:
    """The first request of an episode."""

    model: str
    tokenizer: str
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    prompt_tokens: int
    prompt_text: str | None

    def __repr__(self) -> str:
        return (f'OpeningView({self.model!r}, {len(self.tools)} tools, '
                f'{len(self.messages)} messages, {self.prompt_tokens} tokens ({self.tokenizer}))')

    def text(self) -> str:
        """Return the printout: every message, the tool schema and the token counts."""
        lines = [f'# model: {self.model}   tokenizer: {self.tokenizer}   '
                 f'prompt tokens: {self.prompt_tokens}']
        for message in self.messages:
            content = message['content']
            if not isinstance(content, str):
                content = '\n'.join(p.get('text', f'<{p.get("type")} part>') for p in content)
            lines += [f'\n===== {message["role"]} ({len(content)} characters) =====', content]
        lines += [f'\n===== tools ({len(self.tools)}) =====',
                  json.dumps(self.tools, indent=2, ensure_ascii=False)]
        return '\n'.join(lines)


def opening_view(spec: Any) -> OpeningView:
    """
    Return the first request the LLM planner of ``spec`` would send.

    :param spec: an ``EpisodeSpec`` with an LLM planner.
    :raises ValueError: for a planner that calls no model.
    """
    from pyrua_local.models import is_local

    from .assembly import build_planner
    from .worlds import open_spec_world
    from ..llm import client as chat_client
    from ..llm.local import local_endpoint
    from ..llm.tokens import prompt_tokens

    if not spec.uses_endpoint:
        raise ValueError(f'planner {spec.planner!r} calls no model, so there is no prompt; '
                         'use --planner code, tools or tools_on_request')
    endpoint = spec.endpoint
    if is_local(endpoint.model):
        endpoint = local_endpoint(endpoint, 'http://127.0.0.1:1/v1')  # never contacted
    world, close = open_spec_world(replace(spec, record=False, endpoint=endpoint))
    try:
        planner = build_planner(replace(spec, endpoint=endpoint), world)
        tools, messages = planner.opening(world.card)
    finally:
        close()
    if not endpoint.takes_images:
        messages = chat_client.text_only_messages(messages)
    if is_local(spec.endpoint.model):
        from pyrua_local.tokenizer import ModelTokenizer

        tokenizer = ModelTokenizer(endpoint.model)
        text = tokenizer.render(messages, tools)
        return OpeningView(endpoint.model, f'{endpoint.model} (its own)', tools, messages,
                           len(tokenizer.tokenize(text)), text)
    return OpeningView(endpoint.model, 'o200k_base (estimate)', tools, messages,
                       prompt_tokens(messages, tools), None)

"""
Between chat-completions requests and a local policy: prompt rendering and tool-call parsing.

Requests arrive in the OpenAI chat format the planners send. Before the model's chat template
renders them, ``template_messages`` makes them text-only: a list content becomes its text
parts joined (an image part is dropped; the ``[image: label, WxH]`` text part the planner puts
before each image stays), and tool-call arguments become mappings where they are valid JSON,
as Hugging Face chat templates expect. The policy is therefore a text model: camera images
reach it as their labels only, and no image token is ever generated or trained on.

``parse_hermes`` turns the generated text back into an assistant message: every
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` block becomes a tool call (the
format of the Qwen family's templates and of vLLM's ``hermes`` parser); the rest is content.
A block that is not valid JSON still becomes a call, with an empty name and the raw text as
its arguments, so the planner answers it with its parse error instead of ending the episode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
import json
import re
from typing import Any

_TOOL_CALL = re.compile(r'<tool_call>\s*(.*?)\s*</tool_call>', re.DOTALL)


@dataclass(frozen=True, slots=True)
class ParsedCall:
    """One tool call read from generated text; ``arguments`` is the JSON string sent on."""

    name: str
    arguments: str

    def __repr__(self) -> str:
        return f'ParsedCall({self.name!r}, {len(self.arguments)} chars)'


@dataclass(frozen=True, slots=True)
class ParsedReply:
    """Generated text split into the assistant's content and its tool calls."""

    content: str | None
    calls: tuple[ParsedCall, ...]

    def __repr__(self) -> str:
        return f'ParsedReply({len(self.content or "")} chars, {len(self.calls)} calls)'


def _text(content: Any) -> str:
    if content is None:
        return ''
    if isinstance(content, str):
        return content
    return '\n'.join(part.get('text', '') for part in content if part.get('type') == 'text')


def _arguments(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return raw
    return value if isinstance(value, dict) else raw


def template_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """
    Return chat messages ready for a Hugging Face chat template: text only.

    :param messages: OpenAI chat messages (system, user with images, assistant with
        tool calls, tool results).
    :returns: copies with string content and mapping tool-call arguments.
    """
    out = []
    for message in messages:
        item: dict[str, Any] = {'role': message['role'], 'content': _text(message.get('content'))}
        if message.get('tool_calls'):
            item['tool_calls'] = [
                {'id': call.get('id', ''), 'type': 'function',
                 'function': {'name': call['function']['name'],
                              'arguments': _arguments(call['function'].get('arguments', ''))}}
                for call in message['tool_calls']]
        if message.get('tool_call_id'):
            item['tool_call_id'] = message['tool_call_id']
        out.append(item)
    return out


def parse_hermes(text: str) -> ParsedReply:
    """
    Split generated text into content and Hermes-format tool calls.

    :param text: the decoded completion (end-of-turn token removed).
    :returns: the content outside the tool-call blocks (None when empty) and the calls.
    """
    calls = []
    for block in _TOOL_CALL.findall(text):
        try:
            data = json.loads(block, strict=False)
        except json.JSONDecodeError:
            calls.append(ParsedCall('', block))
            continue
        if not isinstance(data, dict) or not isinstance(data.get('name'), str):
            calls.append(ParsedCall('', block))
            continue
        arguments = data.get('arguments', {})
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        calls.append(ParsedCall(data['name'], arguments))
    content = _TOOL_CALL.sub('', text).strip()
    return ParsedReply(content or None, tuple(calls))

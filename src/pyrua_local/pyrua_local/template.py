r"""
OpenAI chat messages -> the prompt text a GGUF model was trained on, with its own template.

The template is the model's ``tokenizer.chat_template`` (GGUF metadata), rendered as
Hugging Face ``apply_chat_template`` does: a sandboxed Jinja environment with
``trim_blocks``/``lstrip_blocks`` and a ``tojson`` that does NOT HTML-escape (Jinja's own
escapes ``'`` and ``<``; a model then copies ``\\u0027`` into its code). Messages are
normalised first:

- text parts are joined; an image part is refused for a text-only model (the client sends
  ``[image: ...]`` labels instead), never tokenised as base64 text;
- an assistant's tool-call arguments (a JSON string in the OpenAI format) become the object
  the template expects;
- a template that knows no tools (SmolLM2's) gets them the Hermes way: the tool list in the
  system message, calls as ``<tool_call>`` text, results as ``<tool_response>`` user turns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import json
from typing import Any

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

_TOOLS_INTRO = (
    '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n'
    'You are provided with function signatures within <tools></tools> XML tags:\n<tools>')
_TOOLS_OUTRO = (
    '\n</tools>\n\nFor each function call, return a json object with function name and '
    'arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n'
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>')
TOOL_CALL_PREFILL = '<tool_call>\n{"name": "'
"""What a forced tool call (``tool_choice`` required or named) starts the reply with."""


class TemplateError(ValueError):
    """The messages cannot be rendered for this model (the HTTP layer answers 400)."""


def _tojson(value: Any, indent: int | None = None, **_: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent)


def _raise(message: str) -> None:
    raise TemplateError(f'chat template refused the messages: {message}')


class ChatTemplate:
    """
    A model's chat template, ready to render requests.

    :param source: the Jinja text (``tokenizer.chat_template``).
    :param model_name: for error messages.
    :param takes_images: whether image parts may be passed through (vision models).
    """

    def __init__(self, source: str, *, model_name: str, takes_images: bool = False) -> None:
        if not source:
            raise TemplateError(f'model {model_name!r} has no tokenizer.chat_template in its '
                                'GGUF metadata; it cannot be served as a chat model')
        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                            undefined=jinja2.Undefined)
        env.filters['tojson'] = _tojson
        env.globals['raise_exception'] = _raise
        self._template = env.from_string(source)
        self.source = source
        self.model_name = model_name
        self.takes_images = takes_images
        self.knows_tools = 'tools' in source

    def __repr__(self) -> str:
        tools = 'native' if self.knows_tools else 'hermes'
        return f'ChatTemplate({self.model_name!r}, tools={tools})'

    def render(self, messages: Sequence[Mapping[str, Any]],
               tools: Sequence[Mapping[str, Any]] | None = None, *,
               force_tool: str | None = None, add_generation_prompt: bool = True) -> str:
        """
        Return the prompt text for a chat request, ending where the assistant's reply starts.

        :param messages: OpenAI chat messages.
        :param tools: OpenAI function tools (their ``function`` objects are rendered).
        :param force_tool: ``''`` to force some tool call, a name to force that tool, ``None``
            to let the model choose; the forced start is appended after the generation prompt.
        :param add_generation_prompt: False renders the messages alone (no reply start), e.g.
            to find where the system prompt ends.
        :raises TemplateError: for a message the model cannot take.
        """
        plain = [self._message(m) for m in messages]
        functions = [t['function'] if 'function' in t else t for t in tools or ()]
        if functions and not self.knows_tools:
            plain = _hermes_messages(plain, functions)
            functions = []
        try:
            text = self._template.render(messages=plain, tools=functions or None,
                                         add_generation_prompt=add_generation_prompt)
        except jinja2.TemplateError as exc:
            raise TemplateError(f'chat template of {self.model_name!r} failed: {exc}') from exc
        if force_tool is not None:
            text += TOOL_CALL_PREFILL + (f'{force_tool}", "arguments": ' if force_tool else '')
        return text

    def _message(self, message: Mapping[str, Any]) -> dict[str, Any]:
        role = message.get('role')
        if role not in ('system', 'user', 'assistant', 'tool', 'developer'):
            raise TemplateError(f'message role {role!r} vs system, user, assistant, tool')
        out: dict[str, Any] = {'role': 'system' if role == 'developer' else role,
                               'content': self._content(message.get('content'))}
        calls = message.get('tool_calls') or []
        if calls:
            out['tool_calls'] = [_call(c) for c in calls]
        if message.get('tool_call_id'):
            out['tool_call_id'] = message['tool_call_id']
        return out

    def _content(self, content: Any) -> str:
        if content is None:
            return ''
        if isinstance(content, str):
            return content
        texts = []
        for part in content:
            kind = part.get('type')
            if kind == 'text':
                texts.append(part.get('text', ''))
            elif kind in ('image_url', 'input_image'):
                raise TemplateError(
                    f'model {self.model_name!r} reads text only vs an image part in the '
                    "request; send the image as a text label (e.g. '[image: head camera]'): "
                    'the pyrua planners do so for models that declare takes_images=False')
            else:
                raise TemplateError(f'content part type {kind!r} vs text or image_url')
        return '\n'.join(texts)


def _call(call: Mapping[str, Any]) -> dict[str, Any]:
    function = call.get('function', call)
    arguments = function.get('arguments', {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            pass  # rendered as the string it was; the model sees its own malformed call
    return {'id': call.get('id', ''), 'type': 'function',
            'function': {'name': function.get('name', ''), 'arguments': arguments}}


def _hermes_call_text(call: Mapping[str, Any]) -> str:
    function = call['function']
    body = json.dumps({'name': function['name'], 'arguments': function['arguments']},
                      ensure_ascii=False)
    return f'<tool_call>\n{body}\n</tool_call>'


def _hermes_messages(messages: list[dict[str, Any]],
                     functions: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rewrite tool use as plain turns for a template that knows no tools."""
    block = _TOOLS_INTRO + ''.join('\n' + _tojson(f) for f in functions) + _TOOLS_OUTRO
    out: list[dict[str, Any]] = []
    if messages and messages[0]['role'] == 'system':
        out.append({'role': 'system', 'content': messages[0]['content'] + block})
        messages = messages[1:]
    else:
        out.append({'role': 'system', 'content': block.lstrip()})
    for message in messages:
        if message['role'] == 'assistant' and message.get('tool_calls'):
            parts = [message['content']] if message['content'] else []
            parts += [_hermes_call_text(c) for c in message['tool_calls']]
            out.append({'role': 'assistant', 'content': '\n'.join(parts)})
        elif message['role'] == 'tool':
            text = f'<tool_response>\n{message["content"]}\n</tool_response>'
            if out and out[-1].get('_tool_turn'):
                out[-1]['content'] += '\n' + text
            else:
                out.append({'role': 'user', 'content': text, '_tool_turn': True})
        else:
            out.append({'role': message['role'], 'content': message['content']})
    for message in out:
        message.pop('_tool_turn', None)
    return out

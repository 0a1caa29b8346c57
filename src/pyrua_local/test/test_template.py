"""Chat templates from the GGUF: tools rendered natively (Qwen) or the Hermes way (SmolLM2)."""

import json

from pyrua_local.template import TemplateError
import pytest

TOOLS = [{'type': 'function', 'function': {
    'name': 'python', 'description': 'Run a cell.',
    'parameters': {'type': 'object', 'properties': {'code': {'type': 'string'}},
                   'required': ['code']}}}]
CODE = "print(robo.pose('left') < 1 & 2)"
HISTORY = [
    {'role': 'system', 'content': 'You drive a robot.'},
    {'role': 'user', 'content': [{'type': 'text', 'text': 'Task: pick.'},
                                 {'type': 'text', 'text': '[image: head camera, 640x480]'}]},
    {'role': 'assistant', 'content': None, 'tool_calls': [
        {'id': 'c1', 'type': 'function',
         'function': {'name': 'python', 'arguments': json.dumps({'code': CODE})}}]},
    {'role': 'tool', 'tool_call_id': 'c1', 'content': 'ArmPose(left, ...)'},
]


def test_qwen_renders_tools_and_earlier_calls_without_html_escaping(qwen_tokenizer):
    text = qwen_tokenizer.render(HISTORY, TOOLS)
    assert '<tools>' in text and '"name": "python"' in text
    # The earlier call is shown as the model wrote it: no \\u0027 or &#39; for it to copy.
    assert CODE.replace("'", "\\'") not in text
    assert json.dumps({'code': CODE}, ensure_ascii=False) in text
    assert '\\u0027' not in text and '&#39;' not in text and '\\u003c' not in text
    assert '<tool_response>\nArmPose(left, ...)\n</tool_response>' in text
    assert 'Task: pick.\n[image: head camera, 640x480]' in text
    assert text.endswith('<|im_start|>assistant\n')


def test_a_template_without_tools_gets_them_the_hermes_way(smol_tokenizer):
    assert not smol_tokenizer.template.knows_tools
    text = smol_tokenizer.render(HISTORY, TOOLS)
    system = text.split('<|im_end|>')[0]
    assert 'You drive a robot.' in system and '<tools>' in system
    assert '<tool_call>\n{"name": "python", "arguments": {"code": ' in text
    assert '<|im_start|>user\n<tool_response>\nArmPose(left, ...)' in text
    assert '<|im_start|>tool' not in text


def test_images_are_refused_for_a_text_only_model(smol_tokenizer):
    message = {'role': 'user', 'content': [
        {'type': 'image_url', 'image_url': {'url': 'data:image/png;base64,AAAA'}}]}
    with pytest.raises(TemplateError, match='reads text only'):
        smol_tokenizer.render([message])


def test_a_forced_tool_call_starts_the_reply(qwen_tokenizer):
    text = qwen_tokenizer.render(HISTORY[:2], TOOLS, force_tool='python')
    assert text.endswith('<tool_call>\n{"name": "python", "arguments": ')


def test_counts_are_in_the_models_own_tokens(smol_tokenizer, qwen_tokenizer):
    messages = [{'role': 'user', 'content': 'hello robot'}]
    for tok in (smol_tokenizer, qwen_tokenizer):
        text = tok.render(messages)
        assert tok.count(messages) == len(tok.tokenize(text))
        # <|im_start|> is one special token, not characters.
        assert tok.tokenize('<|im_start|>') == tok.tokenize('<|im_start|>')[:1]

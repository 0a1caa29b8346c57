"""Token counts: the offline o200k tokenizer and OpenAI's image formula."""

import numpy as np
from pyrua_agent.llm import attach_image, user_message
from pyrua_agent.llm.tokens import (
    content_tokens,
    data_url_size,
    image_tokens,
    prompt_tokens,
    text_tokens,
)
import pytest


def test_o200k_counts_known_strings():
    assert text_tokens('') == 0
    assert text_tokens('hello world') == 2
    assert text_tokens('robo.move_to("left", [0.1, 0.2, 0.3])') > 10


@pytest.mark.parametrize(('width', 'height', 'detail', 'tokens'), [
    (1024, 1024, 'high', 765),   # -> 768x768, 4 tiles (OpenAI's documented example)
    (2048, 4096, 'high', 1105),  # -> 1024x2048 -> 768x1536, 6 tiles (documented example)
    (4096, 8192, 'low', 85),
    (640, 480, 'auto', 425),     # no resize, 2x1 tiles
    (512, 512, 'auto', 255),
    (100, 100, 'high', 255),     # never scaled up
])
def test_image_tokens_follow_the_openai_formula(width, height, detail, tokens):
    assert image_tokens(width, height, detail) == tokens


def test_image_tokens_refuse_unknown_detail():
    with pytest.raises(ValueError, match=r"image detail 'medium' vs \('auto', 'high', 'low'\)"):
        image_tokens(10, 10, 'medium')


def test_image_parts_are_counted_from_the_data_url_size():
    image = attach_image('head', np.zeros((480, 640, 3), np.uint8))
    assert data_url_size(image.url) == (640, 480)
    parts = user_message('', [image])['content']
    assert content_tokens(parts) == text_tokens(parts[0]['text']) + 425


def test_data_url_that_is_not_an_image_is_refused():
    with pytest.raises(ValueError, match='not a base64 data:image URL'):
        data_url_size('https://example.org/cat.png')


def test_prompt_tokens_grow_with_tools_and_messages():
    base = prompt_tokens([{'role': 'user', 'content': 'hi'}])
    tool = {'type': 'function', 'function': {'name': 'look', 'parameters': {}}}
    assert prompt_tokens([{'role': 'user', 'content': 'hi'}], [tool]) > base
    assert prompt_tokens([{'role': 'user', 'content': 'hi there friend'}]) == base + 2

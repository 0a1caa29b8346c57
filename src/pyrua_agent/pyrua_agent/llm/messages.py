"""
Chat messages in the OpenAI chat-completions format: text, camera images, tool calls, results.

Images travel as base64 PNG or JPEG data URLs. OpenAI chat tool messages are text-only, so
by default a tool result's images go in one user message that follows the tool messages;
endpoints that accept images inside tool messages set ``images_in_tool_messages``.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from .tokens import DETAILS

IMAGE_FORMATS = ('png', 'jpeg')


@dataclass(frozen=True, slots=True)
class ImageAttachment:
    """One encoded image ready for a message, with the label the model sees before it."""

    label: str
    url: str
    width_px: int
    height_px: int
    detail: str = 'auto'

    def __repr__(self) -> str:
        kib = len(self.url) * 3 / 4 / 1024
        return (f'ImageAttachment({self.label!r}, {self.width_px}x{self.height_px}, '
                f'detail={self.detail}, {kib:.0f} KiB)')

    def parts(self) -> list[dict[str, Any]]:
        """Return the text label part and the image part."""
        return [
            {'type': 'text', 'text': f'[image: {self.label}, {self.width_px}x{self.height_px}]'},
            {'type': 'image_url', 'image_url': {'url': self.url, 'detail': self.detail}},
        ]


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What one tool call produced: its call id, the text result and the images it returns."""

    call_id: str
    text: str
    images: tuple[ImageAttachment, ...] = ()

    def __repr__(self) -> str:
        return f'ToolOutput({self.call_id!r}, {len(self.text)} chars, {len(self.images)} images)'


def attach_image(label: str, rgb: np.ndarray, *, detail: str = 'auto', fmt: str = 'png',
                 jpeg_quality: int = 90) -> ImageAttachment:
    """
    Encode an RGB image as a data URL attachment.

    :param label: what the model is told the image is, e.g. ``'head camera'``.
    :param rgb: H x W x 3 uint8 array in RGB order (``CameraFrame.rgb``).
    :param detail: ``'auto'``, ``'high'`` or ``'low'`` (OpenAI image detail).
    :param fmt: ``'png'`` (lossless) or ``'jpeg'`` (smaller).
    :param jpeg_quality: 1..100, used for JPEG only.
    :returns: the attachment.
    :raises ValueError: for a wrong array shape or dtype, detail or format.
    """
    if detail not in DETAILS:
        raise ValueError(f'image detail {detail!r} vs {DETAILS}; use one of them')
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f'image format {fmt!r} vs {IMAGE_FORMATS}; use one of them')
    array = np.asarray(rgb)
    if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
        raise ValueError(f'image {label!r} has shape {array.shape} dtype {array.dtype} vs '
                         'H x W x 3 uint8; pass CameraFrame.rgb')
    bgr = cv2.cvtColor(np.ascontiguousarray(array), cv2.COLOR_RGB2BGR)
    params = [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)] if fmt == 'jpeg' else []
    ok, encoded = cv2.imencode('.png' if fmt == 'png' else '.jpg', bgr, params)
    if not ok:
        raise ValueError(f'OpenCV could not encode image {label!r} as {fmt}; try the other format')
    payload = base64.b64encode(encoded.tobytes()).decode('ascii')
    return ImageAttachment(label=label, url=f'data:image/{fmt};base64,{payload}',
                           width_px=int(array.shape[1]), height_px=int(array.shape[0]),
                           detail=detail)


def system_message(text: str) -> dict[str, Any]:
    """Return a system message."""
    return {'role': 'system', 'content': text}


def user_message(text: str, images: Sequence[ImageAttachment] = (), *,
                 closing: str = '') -> dict[str, Any]:
    """
    Return a user message: plain text, or text followed by labelled images in order.

    :param closing: a last paragraph, after the images (what to reply with: a small model
        follows the message's last words).
    """
    if not images:
        return {'role': 'user', 'content': f'{text.rstrip()}\n\n{closing}' if closing else text}
    parts: list[dict[str, Any]] = [{'type': 'text', 'text': text}] if text else []
    for image in images:
        parts.extend(image.parts())
    if closing:
        parts.append({'type': 'text', 'text': closing})
    return {'role': 'user', 'content': parts}


def assistant_message(content: str | None,
                      tool_calls: Sequence[tuple[str, str, str]] = ()) -> dict[str, Any]:
    """
    Return an assistant message as it goes back into the history.

    :param content: the assistant's text, or ``None`` (sent as ``''`` beside tool calls:
        some servers, llama-cpp-python's among them, answer HTTP 500 to a null there).
    :param tool_calls: ``(call_id, name, arguments_json)`` as the endpoint sent them, even
        when the arguments are malformed (the error answer refers to them).
    """
    if content is None and tool_calls:
        content = ''
    message: dict[str, Any] = {'role': 'assistant', 'content': content}
    if tool_calls:
        message['tool_calls'] = [
            {'id': call_id, 'type': 'function', 'function': {'name': name, 'arguments': args}}
            for call_id, name, args in tool_calls
        ]
    return message


def tool_result_messages(outputs: Sequence[ToolOutput], *,
                         images_in_tool_messages: bool = False) -> list[dict[str, Any]]:
    """
    Return the messages that answer one assistant turn's tool calls, in call order.

    Every tool message comes first (the API requires them right after the assistant
    message). Unless ``images_in_tool_messages``, the images of all outputs then follow in
    one user message, each labelled with the call it belongs to.

    :param outputs: one per tool call of the assistant turn, in the same order.
    :param images_in_tool_messages: whether the endpoint accepts image parts in tool messages.
    :returns: the messages to append to the history.
    """
    messages: list[dict[str, Any]] = []
    trailing: list[dict[str, Any]] = []
    for output in outputs:
        if images_in_tool_messages and output.images:
            parts: list[dict[str, Any]] = [{'type': 'text', 'text': output.text}]
            for image in output.images:
                parts.extend(image.parts())
            messages.append({'role': 'tool', 'tool_call_id': output.call_id, 'content': parts})
            continue
        text = output.text
        if output.images:
            text += f'\n[{len(output.images)} image(s) follow in the next user message]'
            trailing.append({'type': 'text', 'text': f'Images from tool call {output.call_id}:'})
            for image in output.images:
                trailing.extend(image.parts())
        messages.append({'role': 'tool', 'tool_call_id': output.call_id, 'content': text})
    if trailing:
        messages.append({'role': 'user', 'content': trailing})
    return messages

"""Message building: images as data URLs, tool results and where their images go."""

import base64

import cv2
import numpy as np
from pyrua_agent.llm import (
    attach_image,
    EndpointRejected,
    python_tool,
    system_message,
    tool_result_messages,
    ToolOutput,
    user_message,
)
from pyrua_agent.testing import code_turn, end_turns
import pytest


def _frame(height=48, width=64):
    rgb = np.zeros((height, width, 3), np.uint8)
    rgb[..., 0] = 200  # red: catches an RGB/BGR swap
    rgb[:, : width // 2, 2] = 90
    return rgb


def _decode(url):
    raw = base64.b64decode(url.split(',', 1)[1])
    return cv2.cvtColor(cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_COLOR),
                        cv2.COLOR_BGR2RGB)


def test_png_attachment_round_trips_the_rgb_pixels():
    rgb = _frame()
    image = attach_image('head camera', rgb, detail='low')
    assert image.url.startswith('data:image/png;base64,')
    assert (image.width_px, image.height_px, image.detail) == (64, 48, 'low')
    np.testing.assert_array_equal(_decode(image.url), rgb)
    assert 'base64' not in repr(image)


def test_jpeg_attachment_is_smaller_and_close():
    rgb = np.random.default_rng(0).integers(0, 255, (96, 128, 3), dtype=np.uint8)
    png = attach_image('noise', rgb)
    jpeg = attach_image('noise', rgb, fmt='jpeg', jpeg_quality=50)
    assert jpeg.url.startswith('data:image/jpeg;base64,')
    assert len(jpeg.url) < len(png.url)


def test_attach_image_refuses_a_depth_map_with_the_expected_shape():
    with pytest.raises(ValueError, match=r'shape \(4, 4\) dtype float32 vs H x W x 3 uint8'):
        attach_image('depth', np.zeros((4, 4), np.float32))


def test_user_message_labels_each_image_in_order():
    images = [attach_image('head camera', _frame()), attach_image('left_wrist camera', _frame())]
    message = user_message('Task: stack the cubes.', images)
    kinds = [p['type'] for p in message['content']]
    assert kinds == ['text', 'text', 'image_url', 'text', 'image_url']
    assert message['content'][1]['text'] == '[image: head camera, 64x48]'
    assert message['content'][3]['text'] == '[image: left_wrist camera, 64x48]'


def test_tool_result_images_go_in_a_following_user_message():
    image = attach_image('head camera', _frame())
    messages = tool_result_messages([ToolOutput('call_a', 'moved', (image,)),
                                     ToolOutput('call_b', 'no images')])
    assert [m['role'] for m in messages] == ['tool', 'tool', 'user']
    assert messages[0]['content'].startswith('moved')
    assert 'follow in the next user message' in messages[0]['content']
    assert messages[1]['content'] == 'no images'
    assert messages[2]['content'][0]['text'] == 'Images from tool call call_a:'
    assert messages[2]['content'][2]['image_url']['url'] == image.url


def test_tool_result_without_images_adds_no_user_message():
    messages = tool_result_messages([ToolOutput('call_a', 'done')])
    assert messages == [{'role': 'tool', 'tool_call_id': 'call_a', 'content': 'done'}]


def _run_tool_turn(server, client, images_in_tool_messages):
    server.reset([code_turn('robo.look()'), *end_turns('seen')])
    history = [system_message('sys'), user_message('look', [attach_image('head', _frame())])]
    reply = client.complete(history, tools=[python_tool()])
    output = ToolOutput(reply.tool_calls[0].call_id, 'ok', (attach_image('head', _frame()),))
    history += [reply.message(), *tool_result_messages(
        [output], images_in_tool_messages=images_in_tool_messages)]
    return client.complete(history, tools=[python_tool()])


def test_server_receives_images_after_the_tool_message_in_order(server, make_client):
    client = make_client()
    second = _run_tool_turn(server, client, images_in_tool_messages=False)
    request = server.requests[1]
    assert request.roles == ['system', 'user', 'assistant', 'tool', 'user']
    assert request.image_count == 2
    assert second.record.images_sent == 2
    assert isinstance(request.messages[3]['content'], str)


def test_images_in_tool_messages_need_an_endpoint_that_accepts_them(server, make_client):
    client = make_client()
    with pytest.raises(EndpointRejected, match="only allowed for messages with role 'user'"):
        _run_tool_turn(server, client, images_in_tool_messages=True)
    server.images_in_tool_messages = True
    second = _run_tool_turn(server, client, images_in_tool_messages=True)
    assert server.requests[-1].roles == ['system', 'user', 'assistant', 'tool']
    assert second.record.images_sent == 2

"""The live view serves the recorder's channels to a Foxglove websocket client."""

import base64
import json
import os
import socket
import struct
import sys

import numpy as np
from pyrua_agent.live import FoxgloveLiveView, ObserverFanout, require_foxglove
from pyrua_agent.recording import topics
from pyrua_primitives.errors import MissingDependency
from pyrua_primitives.results import MoveResult
from pyrua_primitives.station import CameraFrame, CameraIntrinsics, CameraModel, JointState
import pytest

PROTOCOL = 'foxglove.sdk.v1'


class FoxgloveClient:
    """A minimal websocket client speaking the Foxglove protocol (RFC 6455 framing)."""

    def __init__(self, port):
        self.sock = socket.create_connection(('127.0.0.1', port), timeout=5.0)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f'GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n'
                           f'Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n'
                           f'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {PROTOCOL}\r\n'
                           '\r\n').encode())
        head = b''
        while b'\r\n\r\n' not in head:
            head += self.sock.recv(1)
        self.status, *lines = head.decode().split('\r\n')
        self.headers = {k.lower(): v.strip() for k, _, v in
                        (line.partition(':') for line in lines if line)}

    def _exact(self, size):
        data = b''
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise ConnectionError('server closed the connection')
            data += chunk
        return data

    def receive(self):
        """Return (opcode, payload) of the next frame."""
        first, second = self._exact(2)
        size = second & 0x7F
        if size == 126:
            (size,) = struct.unpack('>H', self._exact(2))
        elif size == 127:
            (size,) = struct.unpack('>Q', self._exact(8))
        return first & 0x0F, self._exact(size)

    def receive_json_until(self, op):
        """Return the JSON messages up to and including the first of ``op``."""
        seen = []
        while not seen or seen[-1].get('op') != op:
            opcode, payload = self.receive()
            if opcode == 1:
                seen.append(json.loads(payload))
        return seen

    def send_json(self, message):
        data = json.dumps(message).encode()
        mask = os.urandom(4)
        header = bytes([0x81, 0x80 | 126]) + struct.pack('>H', len(data)) if len(data) > 125 \
            else bytes([0x81, 0x80 | len(data)])
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(header + mask + masked)

    def close(self):
        self.sock.close()


@pytest.fixture
def view():
    with FoxgloveLiveView(port=0) as live:
        yield live


def test_server_on_port_0_sends_server_info_and_advertises_the_recorder_channels(view):
    assert view.port > 0
    client = FoxgloveClient(view.port)
    try:
        assert ' 101 ' in client.status
        assert client.headers['sec-websocket-protocol'] == PROTOCOL
        messages = client.receive_json_until('advertise')
        assert messages[0]['op'] == 'serverInfo' and messages[0]['name'] == 'pyrua'
        channels = {c['topic']: c for m in messages if m['op'] == 'advertise'
                    for c in m['channels']}
        for topic in (topics.EPISODE, topics.CELL_OUTPUT, topics.PRIMITIVE_GOAL,
                      topics.PRIMITIVE_RESULT, topics.LLM_CALL):
            assert channels[topic]['encoding'] == 'json'
        assert channels[topics.camera_image('head')]['schemaName'] == 'foxglove.RawImage'
        assert channels[topics.JOINT_STATES]['schemaName'] == 'foxglove.JointStates'
        assert channels[topics.camera_info('left_wrist')]['schemaName'] == \
            'foxglove.CameraCalibration'
    finally:
        client.close()


def test_subscribed_client_receives_goal_and_result_records_with_the_cell_index(view):
    client = FoxgloveClient(view.port)
    try:
        messages = client.receive_json_until('advertise')
        channels = {c['topic']: c['id'] for m in messages if m['op'] == 'advertise'
                    for c in m['channels']}
        client.send_json({'op': 'subscribe', 'subscriptions': [
            {'id': 1, 'channelId': channels[topics.PRIMITIVE_GOAL]},
            {'id': 2, 'channelId': channels[topics.PRIMITIVE_RESULT]}]})
        result = MoveResult(reached=True, reason='', arm='left', target_m=(0.1, 0.2, 0.9),
                            final_m=(0.1, 0.2, 0.9), final_heading_rad=0.0, error_m=0.001,
                            duration_s=1.0)
        received = {}
        for _ in range(50):  # the subscription takes effect asynchronously
            goal = view.primitive_goal('move_to', (), {'arm': 'left', 'xyz': (0.1, 0.2, 0.9)})
            view.primitive_result(goal, result, duration_s=1.0)
            client.sock.settimeout(0.2)
            try:
                while len(received) < 2:
                    opcode, payload = client.receive()
                    if opcode == 2 and payload[0] == 1:  # message data
                        (subscription,) = struct.unpack('<I', payload[1:5])
                        received[subscription] = json.loads(payload[13:])
            except TimeoutError:
                continue
            break
        assert received[1]['name'] == 'move_to' and received[1]['cell'] == 0
        assert received[1]['kwargs'] == {'arm': 'left', 'xyz': [0.1, 0.2, 0.9]}
        assert received[2]['result_type'] == 'MoveResult'
        assert received[2]['fields']['final_m'] == [0.1, 0.2, 0.9]
        assert received[2]['result_repr'] == repr(result)
    finally:
        client.close()


class _Log:
    """An observer that keeps what it gets (the primary of a fanout)."""

    def __init__(self):
        self.calls = []
        self.closed = False

    def frame(self, frame):
        self.calls.append(('frame', frame.camera))

    def joint_state(self, state):
        self.calls.append(('joint_state', state.arm))

    def primitive_goal(self, name, args, kwargs):
        self.calls.append(('goal', name))
        return 41

    def primitive_result(self, goal_id, result, *, duration_s, error=None):
        self.calls.append(('result', goal_id))

    def close(self):
        self.closed = True


def test_fanout_feeds_recorder_and_live_view_and_returns_the_primary_goal_ids(view):
    log = _Log()
    fanout = ObserverFanout(log, view)
    intrinsics = CameraIntrinsics(width=8, height=6, fx=5.0, fy=5.0, cx=4.0, cy=3.0)
    model = CameraModel('head', intrinsics, np.eye(4), 0.5)
    fanout.frame(CameraFrame('head', np.zeros((6, 8, 3), np.uint8), model, 0.5))
    fanout.joint_state(JointState('right', np.zeros(6), np.zeros(6), 0.04, 0.5))
    goal = fanout.primitive_goal('wait', (), {'seconds': 0.5})
    fanout.primitive_result(goal, 0.5, duration_s=0.5)
    assert goal == 41
    assert log.calls == [('frame', 'head'), ('joint_state', 'right'), ('goal', 'wait'),
                         ('result', 41)]
    fanout.close()
    assert log.closed and 'closed' in repr(view)


def test_missing_foxglove_sdk_names_the_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, 'foxglove', None)  # what an absent package looks like
    with pytest.raises(MissingDependency, match=r"pip install 'foxglove-sdk>=0.30'"):
        require_foxglove()
    with pytest.raises(MissingDependency, match='run without --foxglove'):
        FoxgloveLiveView(port=0)

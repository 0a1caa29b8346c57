"""Toy worlds for the recording tests: primitives that report to an observer, a code planner."""

import json
from types import SimpleNamespace

import numpy as np
from pyrua_agent.episode import EpisodeWorld
from pyrua_agent.llm import (
    attach_image,
    ChatClient,
    EndpointConfig,
    python_tool,
    system_message,
    tool_result_messages,
    ToolOutput,
    user_message,
)
from pyrua_agent.planners.base import Cell, Finish, TaskCard
from pyrua_agent.testing import LoopbackLLMServer
from pyrua_primitives.results import MoveResult
from pyrua_primitives.station import CameraFrame, CameraIntrinsics, CameraModel, JointState
import pytest

INTRINSICS = CameraIntrinsics(width=64, height=48, fx=50.0, fy=50.0, cx=32.0, cy=24.0)
# Head camera 1 m above the table looking straight down (optical z = world -z).
HEAD_POSE = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.3], [0.0, 0.0, -1.0, 1.0],
                      [0.0, 0.0, 0.0, 1.0]])


def picture(seed: int) -> np.ndarray:
    """Return a 48x64 RGB test picture that differs per seed."""
    rgb = np.zeros((48, 64, 3), np.uint8)
    rgb[..., 0] = np.arange(64, dtype=np.uint8)[None, :] * 4
    rgb[..., 1] = (seed * 40) % 256
    rgb[10:30, 20:40, 2] = 255
    return rgb


class ToyStation:
    """
    Host-side primitives of a tiny station that report frames, joints and goals.

    ``image`` captures a frame; ``move_to`` returns a ``MoveResult`` and samples the
    joints; the task succeeds after ``target`` moves.
    """

    def __init__(self, observer, target=2):
        self.observer = observer
        self.target = target
        self.moves = 0
        self.clock_s = 0.0

    def image(self, camera: str) -> np.ndarray:
        """Capture one frame of ``camera``."""
        self.clock_s += 0.1
        model = CameraModel(camera, INTRINSICS, HEAD_POSE, self.clock_s)
        frame = CameraFrame(camera, picture(int(self.clock_s * 10)), model, self.clock_s)
        self.observer.frame(frame)
        return frame.rgb

    def move_to(self, arm: str, xyz: tuple) -> MoveResult:
        """Move ``arm`` to ``xyz`` (metres); always reached."""
        goal = self.observer.primitive_goal('move_to', (), {'arm': arm, 'xyz': xyz})
        self.clock_s += 1.0
        self.moves += 1
        result = MoveResult(reached=True, reason='', arm=arm, target_m=tuple(xyz),
                            final_m=tuple(xyz), final_heading_rad=0.0, error_m=0.001,
                            duration_s=1.0)
        self.observer.joint_state(JointState(arm, np.full(6, 0.1 * self.moves), np.zeros(6),
                                             0.04, self.clock_s))
        self.observer.primitive_result(goal, result, duration_s=1.0)
        return result

    def world(self, card_images=True):
        card = TaskCard(task='toy', instruction='move the left arm twice', robot_state='idle',
                        images=(('head', picture(0)),) if card_images else ())
        return EpisodeWorld(task='toy', seed=3, layout=1, card=card,
                            primitives={'image': self.image, 'move_to': self.move_to},
                            acting=('move_to',), success=lambda: self.moves >= self.target,
                            score=lambda: self.moves / self.target)


class ToyCodePlanner:
    """A minimal code agent: one ``python`` tool call per turn; knows nothing of recording."""

    name = 'toy_code'

    def __init__(self, client):
        self.client = client
        self.ledger = client.ledger
        self.messages = []
        self._call_id = ''

    def begin(self, card, budgets):
        images = [attach_image(f'{camera} camera', rgb) for camera, rgb in card.images]
        self.messages = [system_message('Write Python cells; robo is the robot.'),
                         user_message(card.instruction, images)]

    def next_step(self):
        reply = self.client.complete(self.messages, tools=[python_tool()])
        self.messages.append(reply.message())
        if not reply.tool_calls:
            return Finish(reply.content or '')
        call = reply.tool_calls[0]
        self._call_id = call.call_id
        return Cell(code=json.loads(call.arguments)['code'], label=call.call_id)

    def observe(self, result):
        images = tuple(attach_image(f'{i.camera} camera', i.pixels) for i in result.images)
        self.messages.extend(tool_result_messages([ToolOutput(self._call_id, result.output,
                                                              images)]))

    def close(self):
        pass


@pytest.fixture(scope='session')
def llm_server():
    with LoopbackLLMServer() as server:
        yield server


@pytest.fixture
def llm_client(llm_server):
    llm_server.reset()
    config = EndpointConfig(base_url=llm_server.base_url, model='loopback', max_retries=0)
    with ChatClient(config) as client:
        yield client


@pytest.fixture(scope='session')
def toy():
    """Return the toy world's building blocks (test modules cannot import conftest)."""
    return SimpleNamespace(Station=ToyStation, CodePlanner=ToyCodePlanner, picture=picture,
                           head_pose=HEAD_POSE)

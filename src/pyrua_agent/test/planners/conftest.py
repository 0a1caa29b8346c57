"""
Fixtures of the planner tests: a toy station world and a loopback endpoint.

The toy station is a table with a block and a bowl, two arms and host-side primitives with
real docstrings and short result reprs, so the planners run full episodes without the robot
library. The endpoint is the real ``LoopbackLLMServer`` on 127.0.0.1, one per session, reset
per test.
"""

from __future__ import annotations

from collections.abc import Sequence
import math

import numpy as np
from pyrua_agent.episode import EpisodeWorld
from pyrua_agent.llm import EndpointConfig
from pyrua_agent.planners.base import TaskCard
from pyrua_primitives.results import GripperResult, MoveResult
import pytest

CAMERAS = ('head', 'left_wrist')


class ToyStation:
    """A block to put in a bowl; a closed gripper at the block carries it along."""

    cameras = CAMERAS
    pick_place_cells = (
        "b = robo.locate('block')\nprint(b)\nrobo.show('head', 'the block')",
        "print(robo.move_to('left', b))\nprint(robo.close_gripper('left'))",
        "g = robo.locate('bowl')\nprint(robo.move_to('left', [g[0], g[1], 0.1]))",
        "print(robo.open_gripper('left'))",
    )

    def __init__(self):
        self.block = [0.10, 0.00, 0.02]
        self.bowl = (0.30, 0.10, 0.0)
        self.tcp = {'left': [-0.2, -0.2, 0.3], 'right': [0.2, -0.2, 0.3]}
        self.holding = None
        self.calls = []

    def locate(self, query: str) -> tuple[float, float, float] | None:
        """
        Find an object on the table by name.

        :param query: ``'block'`` or ``'bowl'``.
        :returns: the object's centre (x, y, z) in metres, or None when it is not seen.
        """
        self.calls.append(('locate', query))
        if query == 'block':
            return tuple(self.block)
        if query == 'bowl':
            return self.bowl
        return None

    def move_to(self, arm: str, xyz: Sequence[float], heading: float | None = None) -> MoveResult:
        """
        Move an arm's gripper to a point.

        :param arm: ``'left'`` or ``'right'``.
        :param xyz: target in metres, station frame.
        :param heading: gripper yaw in radians; kept as is when None.
        :returns: reached=True, or reached=False with the reason (the arm did not move).
        """
        self.calls.append(('move_to', arm, tuple(xyz)))
        target = tuple(float(v) for v in xyz)
        if target[2] < 0.0:
            return MoveResult(False, f'z={target[2]:.3f} m is below the table; raise z', arm,
                              target, tuple(self.tcp[arm]), 0.0, 0.0, 0.0)
        self.tcp[arm] = list(target)
        if self.holding == arm:
            self.block = list(target)
        return MoveResult(True, '', arm, target, target, heading or 0.0, 0.0, 0.5)

    def open_gripper(self, arm: str) -> GripperResult:
        """
        Open a gripper, dropping what it holds.

        :param arm: ``'left'`` or ``'right'``.
        """
        self.calls.append(('open_gripper', arm))
        if self.holding == arm:
            self.holding = None
            self.block[2] = 0.02
        return GripperResult(False, '', arm, 'open', 0.088, 0.088)

    def close_gripper(self, arm: str) -> GripperResult:
        """
        Close a gripper.

        :param arm: ``'left'`` or ``'right'``.
        :returns: held=True when the fingers stopped on the block.
        """
        self.calls.append(('close_gripper', arm))
        if math.dist(self.tcp[arm], self.block) < 0.02:
            self.holding = arm
            return GripperResult(True, '', arm, 'close', 0.04, 0.0)
        return GripperResult(False, 'fingers closed fully', arm, 'close', 0.0, 0.0)

    def image(self, camera: str) -> np.ndarray:
        """
        Take a picture.

        :param camera: ``'head'`` or ``'left_wrist'``.
        :returns: a 48x64 RGB image.
        """
        frame = np.zeros((48, 64, 3), np.uint8)
        frame[..., CAMERAS.index(camera)] = 200
        return frame

    def solved(self) -> bool:
        """Return whether the block rests in the bowl, released."""
        return (self.holding is None and math.dist(self.block[:2], self.bowl[:2]) < 0.03
                and self.block[2] < 0.05)

    def primitives(self):
        return {name: getattr(self, name)
                for name in ('locate', 'move_to', 'open_gripper', 'close_gripper', 'image')}

    def world(self, **overrides):
        card = TaskCard(task='toy_pick_place', instruction='Put the block in the bowl.',
                        robot_state='left gripper open at (-0.2, -0.2, 0.3) m',
                        station_facts='- TOY-FACTS: the table top is at z = 0.',
                        images=tuple((camera, self.image(camera)) for camera in CAMERAS))
        kwargs = {'task': 'toy_pick_place', 'seed': 0, 'layout': 0, 'card': card,
                  'primitives': self.primitives(),
                  'acting': ('move_to', 'open_gripper', 'close_gripper'),
                  'success': self.solved}
        kwargs.update(overrides)
        return EpisodeWorld(**kwargs)


@pytest.fixture
def station():
    return ToyStation()


@pytest.fixture
def endpoint(server):
    """Return an endpoint config for the loopback server with millisecond backoff."""
    return EndpointConfig(base_url=server.base_url, model='gpt-5-mini', timeout_s=10.0,
                          max_retries=2, backoff_initial_s=0.001, backoff_max_s=0.01)

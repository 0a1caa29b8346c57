"""A toy station that records like the twin world does, and recorded toy episodes to replay."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from pyrua_agent.episode import EpisodeWorld
from pyrua_agent.episode import run_recorded_episode
from pyrua_agent.planners.base import TaskCard
from pyrua_agent.planners.percent import parse_percent
from pyrua_agent.planners.script import ScriptPlanner
from pyrua_agent.recording import Recorder
from pyrua_primitives.perception.locate import LocateResult
from pyrua_primitives.results import GripperResult, MoveResult
from pyrua_primitives.station import (
    CameraFrame,
    CameraIntrinsics,
    CameraModel,
    check_arm,
    JointState,
)
import pytest

INTRINSICS = CameraIntrinsics(width=32, height=24, fx=30.0, fy=30.0, cx=16.0, cy=12.0)
POSE = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.3], [0.0, 0.0, -1.0, 1.0],
                 [0.0, 0.0, 0.0, 1.0]])


class ToyStation:
    """
    Primitives of a tiny station, each recorded as the twin world records them.

    Every call reports its goal (arguments by keyword), the frames it captures and its
    result (or error) to the observer. Pictures differ per capture; the task succeeds
    after ``target`` moves.
    """

    def __init__(self, observer, target=99):
        self.observer = observer
        self.target = target
        self.moves = 0
        self.clock_s = 0.0

    def _frame(self, camera):
        self.clock_s += 0.1
        rgb = np.zeros((24, 32, 3), np.uint8)
        rgb[..., 0] = int(self.clock_s * 10) * 20 % 256
        rgb[4:12, 8:20, 2] = 255
        frame = CameraFrame(camera, rgb, CameraModel(camera, INTRINSICS, POSE, self.clock_s),
                            self.clock_s)
        self.observer.frame(frame)
        return frame

    def _recorded(self, name, arguments, work):
        goal = self.observer.primitive_goal(name, (), arguments)
        try:
            result = work()
        except Exception as exc:
            self.observer.primitive_result(goal, None, duration_s=0.0,
                                           error=f'{type(exc).__name__}: {exc}')
            raise
        self.observer.primitive_result(goal, result, duration_s=0.0)
        return result

    def image(self, camera: str) -> np.ndarray:
        """Capture one frame of ``camera``."""
        return self._recorded('image', {'camera': camera}, lambda: self._frame(camera).rgb)

    def locate(self, query: str) -> LocateResult:
        """Find ``query`` (only 'red block' is there); captures the head camera."""
        def work():
            self._frame('head')
            if query != 'red block':
                return LocateResult(found=False, reason=f'no {query} in view', query=query)
            return LocateResult(found=True, reason='', query=query,
                                position_m=(0.1, 0.05 * self.moves, 0.79), size_m=(0.04, 0.04),
                                height_m=0.04, top_z_m=0.81, heading_rad=math.radians(10),
                                cameras=('head',), pixels=(120, 80), height_source='wrist')
        return self._recorded('locate', {'query': query}, work)

    def move_to(self, arm: str, xyz: tuple, heading: float | None = None, *,
                cancel=None) -> MoveResult:
        """Move ``arm`` to ``xyz`` (metres); refuses z below 0.78 m."""
        def work():
            check_arm(arm)
            if xyz[2] < 0.78:
                return MoveResult(reached=False, reason=f'z={xyz[2]:.3f} m below 0.780 m',
                                  arm=arm, target_m=tuple(xyz), final_m=(0.0, 0.0, 1.0),
                                  final_heading_rad=0.0, error_m=0.3, duration_s=0.0)
            self.moves += 1
            self.clock_s += 1.0
            return MoveResult(reached=True, reason='', arm=arm, target_m=tuple(xyz),
                              final_m=tuple(float(c) + 0.0004 for c in xyz),
                              final_heading_rad=heading or 0.0, error_m=0.0007,
                              duration_s=1.25)
        arguments = {'arm': arm, 'xyz': xyz}
        if heading is not None:
            arguments['heading'] = heading
        return self._recorded('move_to', arguments, work)

    def close_gripper(self, arm: str) -> GripperResult:
        """Close ``arm``'s gripper; it holds a 40 mm block after a move."""
        def work():
            width = 0.04 if self.moves else 0.0
            return GripperResult(held=bool(self.moves), reason='' if self.moves else 'empty',
                                 arm=arm, action='close', width_m=width, commanded_width_m=0.0)
        return self._recorded('close_gripper', {'arm': arm}, work)

    def joints(self, arm: str) -> JointState:
        """Read ``arm``'s joints."""
        return self._recorded('joints', {'arm': arm}, lambda: JointState(
            arm, np.linspace(0.1, 0.6, 6) * (1 + self.moves), np.zeros(6), 0.088,
            self.clock_s))

    def primitives(self):
        """Return the toy primitives by name."""
        return {name: getattr(self, name)
                for name in ('close_gripper', 'image', 'joints', 'locate', 'move_to')}

    def world(self):
        """Return the toy's EpisodeWorld with a one-image task card."""
        card = TaskCard(task='toy', instruction='pick the red block',
                        robot_state='both arms home', images=(('head', self._frame('head').rgb),))
        return EpisodeWorld(task='toy', seed=7, layout=2, card=card,
                            primitives=self.primitives(),
                            acting=('close_gripper', 'move_to'),
                            success=lambda: self.moves >= self.target,
                            score=lambda: min(1.0, self.moves / self.target))


CELLS = (
    "print(instruction)\nblock = robo.locate('red block')\nprint(block)\n"
    "robo.show('head', 'the block')",
    "print(robo.joints('left'))\nr = robo.move_to('left', [0.1, 0.0, 0.9], heading=0.2)\n"
    'print(r)\nprint(r.final_m[2], r.duration_s)',
    "print(robo.move_to('left', (0.1, 0.0, 0.5)))\nprint(robo.locate('blue bowl'))",
    "print(robo.close_gripper('left'))\nprint(robo.image('head').sum())",
    "robo.move_to('middle', [0.1, 0.0, 0.9])",
    "robo.move_to('left')",
    "print(robo.move_to('left', [0.2, 0.0, 0.9]))\nprint('after the second move')",
)


def record_toy(run_dir, cells=CELLS, target=99, config=None):
    """Record one toy episode of ``cells`` (after a card cell when one reads ``instruction``)."""
    recorder = Recorder(run_dir)
    station = ToyStation(recorder, target=target)
    world = station.world()
    planner = ScriptPlanner(parse_percent(''.join(f'# %% step {k}\n{c}\n'
                                                  for k, c in enumerate(cells, start=1))))
    result = run_recorded_episode(world, planner, recorder,
                                  config=config or {'budgets': {'max_cells': 20}})
    return result, station


@pytest.fixture(scope='session')
def toy_replay():
    """Return the toy building blocks (test modules cannot import conftest)."""
    return SimpleNamespace(Station=ToyStation, record=record_toy, cells=CELLS)


@pytest.fixture(scope='module')
def toy_run(tmp_path_factory):
    """Record the toy episode once per module; returns (run dir, result, prototypes)."""
    run_dir = tmp_path_factory.mktemp('replay') / 'episode'
    result, station = record_toy(run_dir)
    return run_dir, result, ToyStation(None).primitives()

"""Hand-placed ground-truth states for the task tests (no simulator needed)."""

import numpy as np
from pyrua_sim.layout import BUTTON_BASE_HEIGHT_M, TABLE_Z
from pyrua_sim.tasks import SceneState
import pytest


def _state(layout, moves=None, released=True, width_m=0.08, time_s=0.0):
    poses = {}
    for spec in layout.objects:
        pose = np.array(spec.pose, dtype=float)
        if spec.kind == 'button':
            pose[2] = TABLE_Z + BUTTON_BASE_HEIGHT_M
        poses[spec.name] = pose
    for name, value in (moves or {}).items():
        value = np.asarray(value, dtype=float)
        poses[name][: len(value)] = value
    return SceneState(
        poses=poses,
        gripper_width_m={'left': width_m, 'right': width_m if released else 0.04},
        gripper_open={'left': True, 'right': released},
        time_s=time_s,
    )


@pytest.fixture
def make_state():
    """
    Build hand-placed states from a layout, moving the named objects.

    Objects stay at their layout poses unless moved; ``released=False`` closes the right
    gripper.
    """
    return _state

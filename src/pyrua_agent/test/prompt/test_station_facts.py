"""Station facts in the prompt are measured from the Station: change it, the prompt follows."""

from dataclasses import dataclass

import numpy as np
from pyrua_agent.planners import interface_prompt
from pyrua_agent.prompt.station_facts import station_facts
from pyrua_primitives.station import ArmBase, CameraIntrinsics, CameraModel, JointLimits


@dataclass
class TableStation:
    """The calibration part of a Station: table, arm mountings, cameras (a real peer)."""

    table_z: float = 0.765
    base_y: float = -0.45
    base_z: float = 0.765
    head_z: float = 1.308
    gripper_max_m: float = 0.088

    def table_height_m(self):
        return self.table_z

    def arm_base(self, arm):
        pose = np.eye(4)
        pose[:3, :3] = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]  # faces +y
        pose[:3, 3] = (-0.3 if arm == 'left' else 0.3, self.base_y, self.base_z)
        return ArmBase(arm, pose)

    def joint_limits(self, arm):
        return JointLimits(lower_rad=np.full(6, -1.0), upper_rad=np.full(6, 1.0),
                           max_velocity_rad_s=np.ones(6), gripper_max_width_m=self.gripper_max_m)

    def camera_model(self, camera):
        pose = np.eye(4)
        pose[:3, :3] = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]]  # looks +y
        pose[:3, 3] = (0.0, -0.41, self.head_z)
        return CameraModel(camera, CameraIntrinsics(640, 480, 500.0, 500.0, 320.0, 240.0),
                           pose, 0.0)


def _prompt(station):
    return interface_prompt('code', 'robo.move_to(arm, xyz)', station_facts(station))


def test_prompt_states_the_measured_table_bases_cameras_reach_and_gripper():
    text = _prompt(TableStation())
    assert '- The table top is at z = 0.765 m.' in text
    assert ('the left arm base at (-0.30, -0.45, 0.765) facing +y; the right arm base at '
            '(0.30, -0.45, 0.765) facing +y') in text
    assert "Camera 'head' is at (0.00, -0.41, 1.308) looking +y; image right is world +x" in text
    assert "Camera 'left_wrist' is on the left wrist" in text
    assert '0.10 m above the table: 0.18-0.36 m' in text
    assert 'at most 0.088 m between the finger pads' in text


def test_changing_the_station_changes_the_prompt():
    base = _prompt(TableStation())
    raised = _prompt(TableStation(table_z=0.80, base_y=-0.50, head_z=1.40, gripper_max_m=0.1))
    assert 'at most 0.100 m between the finger pads' in raised
    assert '- The table top is at z = 0.800 m.' in raised and '0.765 m.' not in raised
    assert 'the left arm base at (-0.30, -0.50, 0.765)' in raised
    assert 'at (0.00, -0.41, 1.400)' in raised
    # a table 35 mm above the arm mountings leaves less reach at each height above it
    assert '0.10 m above the table: 0.18-0.36 m' in base
    assert '0.10 m above the table: 0.18-0.36 m' not in raised

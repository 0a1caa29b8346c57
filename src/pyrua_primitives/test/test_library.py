"""Every primitive of the library on the MuJoCo twin (the evaluator only checks outcomes)."""

import re

import numpy as np
from pyrua_primitives.library import ACTING, LibraryConfig, PrimitiveLibrary
from pyrua_sim.twin import load_twin
import pytest

TABLE_Z = 0.765


@pytest.fixture(scope='module')
def twin():
    """Load a pick_place layout whose blue block lies in front of the left arm (seed 0, 0)."""
    with load_twin('pick_place', 0, 0) as loaded:
        yield loaded


@pytest.fixture
def lib(twin):
    """Return a fresh library over the twin, reset to its layout and home pose."""
    twin.reset()
    return PrimitiveLibrary(twin.station)


class Frames:
    """A recorder-like observer that keeps what the library reports."""

    def __init__(self):
        self.frames, self.states = [], []

    def frame(self, frame):
        self.frames.append(frame.camera)

    def joint_state(self, state):
        self.states.append(state.arm)


def _block(twin):
    return twin.evaluator.object_poses()['obj/blue_block'][:3]


def test_primitives_are_the_documented_set_and_acting_ones_are_marked(lib):
    names = set(lib.primitives())
    assert names == {'back_project', 'camera_meta', 'close_gripper', 'home', 'image', 'joints',
                     'locate', 'locate_all', 'measure', 'move_to', 'open_gripper', 'pose',
                     'reachable', 'station_facts', 'vla', 'wait'}
    assert set(ACTING) <= names
    for func in lib.primitives().values():
        assert func.__doc__ and ':returns:' in func.__doc__


def test_locate_measures_a_block_within_a_few_millimetres(lib, twin):
    result = lib.locate('blue block')
    assert result.found, result.reason
    truth = _block(twin)
    assert np.linalg.norm(np.subtract(result.position_m[:2], truth[:2])) < 0.005
    assert len(repr(result)) < 160 and 'blue block' in repr(result)


def test_locate_refuses_unknown_words_and_absent_objects(lib):
    unknown = lib.locate('red elephant')
    assert not unknown.found and 'elephant' in unknown.reason
    absent = lib.locate('yellow block')
    assert not absent.found and 'yellow block' in absent.reason
    assert absent.position_m is None


def test_locate_rejects_misuse(lib):
    with pytest.raises(TypeError, match='non-empty string'):
        lib.locate('')
    with pytest.raises(ValueError, match='did you mean'):
        lib.locate('blue block', cameras=['heda'])


def test_pick_up_and_hold_with_the_grasp_width_check(lib, twin):
    block = lib.locate('blue block', cameras=['head', 'left_wrist', 'right_wrist'])
    x, y, z = block.position_m
    assert lib.open_gripper('left').width_m > 0.08
    hover = lib.move_to('left', [x, y, TABLE_Z + 0.08], heading=block.heading_rad)
    assert hover.reached, hover.reason
    down = lib.move_to('left', [x, y, z + 0.005], heading=block.heading_rad, descend=True)
    assert down.reached, down.reason
    grip = lib.close_gripper('left')
    assert grip.held and 0.035 < grip.width_m < 0.045, grip
    up = lib.move_to('left', [0.0, 0.0, 0.06], relative=True)
    assert up.reached and up.final_m[2] == pytest.approx(z + 0.065, abs=0.005)
    assert _block(twin)[2] > TABLE_Z + 0.05  # the block came up with the gripper
    # The block's centre moved with the pad point it was grasped at.
    assert _block(twin)[2] == pytest.approx(up.final_m[2] - 0.005, abs=0.006)
    assert lib.pose('left').held is True and 'held)' in repr(lib.pose('left'))
    assert lib.open_gripper('left').held is False
    assert lib.pose('left').held is False  # checked again now, not remembered


def test_closing_on_nothing_reports_nothing_held(lib):
    grip = lib.close_gripper('right')
    assert not grip.held and 'nothing held' in grip.reason and grip.width_m < 0.004


def test_move_to_refuses_targets_below_the_table_without_moving(lib):
    before = lib.joints('left').positions_rad
    result = lib.move_to('left', [-0.30, -0.15, TABLE_Z + 0.01])
    assert not result.reached and result.duration_s == 0.0
    assert 'clearance' in result.reason
    np.testing.assert_array_equal(lib.joints('left').positions_rad, before)


def test_move_to_refuses_unreachable_targets_with_the_limit(lib):
    result = lib.move_to('right', [0.30, 0.20, TABLE_Z + 0.08])
    assert not result.reached and 'reach' in result.reason


def test_move_to_raises_on_nan_wrong_length_and_bad_arm(lib):
    with pytest.raises(ValueError, match='NaN'):
        lib.move_to('left', [float('nan'), 0.0, 0.9])
    with pytest.raises(ValueError, match='shape'):
        lib.move_to('left', [0.1, 0.2])
    with pytest.raises(ValueError, match="did you mean 'left'"):
        lib.move_to('lefft', [0.1, 0.2, 0.9])


def test_move_to_refuses_unknown_values_naming_the_argument(lib):
    absent = lib.locate('yellow block')
    with pytest.raises(ValueError, match=r'^xyz is None, an unknown value'):
        lib.move_to('left', absent.position_m)
    with pytest.raises(ValueError, match=r'^xyz\[2\] is None'):
        lib.move_to('left', (-0.3, -0.15, None))
    with pytest.raises(ValueError, match='max_tilt=2.0 vs'):
        lib.move_to('left', [-0.3, -0.15, 0.9], max_tilt=2.0)


def test_a_heading_in_degrees_is_refused_before_anything_moves(lib):
    # Recorded from Qwen2.5-Coder-1.5B through the tools interface: it read "heading -38 deg"
    # in a LocateResult's repr and passed heading=-38, which used to be wrapped silently.
    before = lib.joints('left').positions_rad
    with pytest.raises(ValueError, match=r'heading=-38 is more than two .* pass -0\.663'):
        lib.move_to('left', [-0.30, -0.15, TABLE_Z + 0.08], heading=-38)
    with pytest.raises(ValueError, match=r'heading=90 is more than two full turns'):
        lib.reachable('left', [-0.30, -0.15, TABLE_Z + 0.08], heading=90)
    with pytest.raises(TypeError, match='max_tilt must be a number of radians'):
        lib.move_to('left', [-0.30, -0.15, TABLE_Z + 0.08], max_tilt=None)
    np.testing.assert_array_equal(lib.joints('left').positions_rad, before)
    # Within two turns (a direction plus pi / 2, as sort_by_color's program passes 7.149;
    # a NumPy scalar) is an angle in radians.
    assert lib.move_to('left', [-0.30, -0.15, TABLE_Z + 0.08], heading=np.float32(-4.0)).reached
    assert lib.reachable('left', [-0.30, -0.15, TABLE_Z + 0.08], heading=7.15).reachable


def test_reachable_answers_without_moving(lib):
    before = lib.joints('right').positions_rad
    near = lib.reachable('right', [0.30, -0.15, TABLE_Z + 0.08])
    far = lib.reachable('left', [0.30, -0.15, TABLE_Z + 0.08])
    assert near.reachable and near.base_distance_m == pytest.approx(0.30, abs=1e-6)
    assert not far.reachable and 'max_tilt > 0' in far.reason
    assert repr(near).startswith('ReachResult(reachable, right to (0.300, -0.150, 0.845) m')
    np.testing.assert_array_equal(lib.joints('right').positions_rad, before)


def test_every_repr_that_shows_a_heading_gives_the_radians_too(lib):
    # Recorded from Qwen2.5-Coder-1.5B: it copied a MoveResult's "heading -71 deg" as
    # heading=-71, and "heading 31 deg = 0.54 rad" as -31: the reprs give radians only.
    moved = lib.move_to('left', [-0.30, -0.15, TABLE_Z + 0.08], heading=-1.24, path='joint')
    assert moved.reached, moved.reason
    assert re.search(r', heading -1\.2[34] rad, error ', repr(moved)), repr(moved)
    pose = lib.pose('left')
    assert re.search(r', heading -1\.2[34] rad, tilt 0 deg, ', repr(pose)), repr(pose)


def test_a_point_out_of_one_arms_reach_names_the_arm_that_reaches_it(lib):
    # Recorded from Qwen2.5-Coder-1.5B through the tools interface: a block at x = 0.413
    # (the right side), the left arm sent to it and refused 0.809 m out, then max_tilt,
    # path and relative tried on the left arm until the call budget ended.
    block = [0.413, -0.068, 0.788]
    before = lib.joints('left').positions_rad
    refused = lib.move_to('left', block, heading=-0.663, descend=True)
    assert not refused.reached
    assert refused.reason.startswith('not reachable: top-down TCP 0.809 m out')
    assert refused.reason.endswith("; the right arm reaches this point: pass arm='right'")
    np.testing.assert_array_equal(lib.joints('left').positions_rad, before)
    check = lib.reachable('left', block, heading=-0.663, descend=True)
    assert check.reason.endswith("pass arm='right'")
    assert lib.reachable('right', block, heading=-0.663, descend=True).reachable
    # A point neither arm reaches names no arm; nor does a refusal that is not about reach.
    nowhere = lib.move_to('left', [0.0, 0.9, 0.85])
    assert nowhere.reason.startswith('not reachable') and 'arm reaches' not in nowhere.reason
    low = lib.move_to('left', [-0.1, -0.2, 0.70])
    assert not low.reached and 'arm reaches' not in low.reason
    # The 1.5B sends a block's centre without descend: the right arm refuses that z too
    # (below the finger-tip floor), so the hint names the height it reaches the x, y from.
    centre = lib.move_to('left', [0.413, -0.068, 0.785])
    assert centre.reason.endswith(
        "; the right arm reaches this x, y at z >= 0.788 with descend=True: pass arm='right'")
    assert lib.move_to('right', [0.413, -0.068, 0.788], descend=True).reached


def test_a_point_too_high_is_refused_with_the_highest_z_that_reaches_it(lib):
    # Recorded from Qwen2.5-Coder-1.5B through the tools interface: after home('left') it sent
    # home's own position to move_to, 4-6 times, refused "move the target into that range".
    assert lib.home('left').reached
    ready = lib.pose('left')
    assert ready.tilt_rad > 0.5  # the ready pose is tilted: not a top-down target
    refused = lib.move_to('left', ready.position_m)
    highest = re.search(r'lower z to at most (0\.\d{3}) at this x, y', refused.reason)
    assert not refused.reached and highest, refused.reason
    x, y, _ = ready.position_m
    assert lib.move_to('left', [x, y, float(highest[1])]).reached
    assert not lib.move_to('left', [x, y, float(highest[1]) + 0.005]).reached
    far = lib.move_to('left', [-0.3, 0.15, 0.80])
    assert 'move x, y to 0.08-0.46 m from the arm base at (-0.30, -0.45)' in far.reason


def test_measure_moves_a_wrist_camera_over_an_unmeasured_object(lib, twin):
    rough = lib.locate('green bowl')
    assert rough.found and rough.height_m is None and 'robo.measure(' in rough.note
    fine = lib.measure('green bowl')
    assert fine.height_source == 'rgb_hull' and fine.height_m == pytest.approx(0.04, abs=0.01)
    assert fine.query == 'green bowl' and fine.cameras[0] == 'head'
    truth = twin.evaluator.object_poses()['obj/green_bowl'][:2]
    assert np.all(np.abs(np.subtract(fine.position_m[:2], truth)) <= fine.bound_m[:2])


def test_home_returns_to_the_ready_pose(lib, twin):
    lib.move_to('right', [0.30, -0.15, TABLE_Z + 0.08])
    result = lib.home('right')
    assert result.reached, result.reason
    np.testing.assert_allclose(lib.joints('right').positions_rad,
                               twin.station.home_positions_rad('right'), atol=0.02)


def test_pose_joints_wait_and_the_observer(twin):
    twin.reset()
    seen = Frames()
    lib = PrimitiveLibrary(twin.station, observer=seen)
    pose = lib.pose('left')
    assert pose.position_m[2] > TABLE_Z and 'ArmPose(left' in repr(pose)
    assert len(lib.joints('right').positions_rad) == 6
    waited = lib.wait(0.5)
    assert waited == pytest.approx(0.5, abs=0.02)
    with pytest.raises(ValueError, match='allowed'):
        lib.wait(-1)
    lib.image('head')
    assert seen.frames == ['head'] and seen.states.count('left') >= 1


def test_cameras_image_meta_and_back_projection(lib):
    rgb = lib.image('head')
    assert rgb.shape == (480, 640, 3) and rgb.dtype == np.uint8
    meta = lib.camera_meta('head')
    assert meta.width_px == 640 and 50 < meta.pitch_deg < 70
    hit = lib.back_project('head', 320, 400)
    assert hit.hit and hit.point_m[2] == pytest.approx(TABLE_Z)
    miss = lib.back_project('head', 320, 0, z=2.0)
    assert not miss.hit and 'misses' in miss.reason


def test_privileged_segmenter_is_refused_by_default():
    with pytest.raises(ValueError, match='allow_privileged'):
        LibraryConfig(segmenter='oracle')


def test_flat_marker_is_measured_on_the_table_from_the_wrist_that_sees_it_best():
    with load_twin('place_on_marker', 0, 5) as marker_twin:
        lib = PrimitiveLibrary(marker_twin.station)
        truth = marker_twin.evaluator.object_poses()['obj/yellow_marker'][:3]
        assert lib.move_to('left', [truth[0], truth[1] + 0.06, TABLE_Z + 0.08]).reached
        result = lib.locate('yellow marker')
        assert result.found and result.height_source == 'flat'
        assert 'left_wrist' in result.cameras
        assert np.linalg.norm(np.subtract(result.position_m[:2], truth[:2])) < 0.003

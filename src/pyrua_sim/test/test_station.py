"""MujocoStation: joint state, trajectories, gripper, cameras, refusals."""

import threading

import mujoco
import numpy as np
from pyrua_primitives.cancel import CancelToken
from pyrua_primitives.station import CAMERAS, Station
from pyrua_sim.config import StationConfig
from pyrua_sim.errors import ConfigError, ModelError
from pyrua_sim.model import station_spec
from pyrua_sim.station import CAMERA_MJCF_NAMES, MujocoStation
import pytest

HOME_LEFT = np.array([-0.127, 1.302, 1.504, -1.14, 0.375, -0.245])


def test_station_implements_the_station_protocol(station):
    assert isinstance(station, Station)


def test_camera_table_names_every_api_camera_in_the_model(bare_model):
    assert set(CAMERA_MJCF_NAMES) == set(CAMERAS)
    for mjcf_name in CAMERA_MJCF_NAMES.values():
        assert bare_model.camera(mjcf_name).id >= 0


def test_joint_state_starts_at_home_with_open_gripper(station):
    state = station.joint_state('left')
    np.testing.assert_allclose(state.positions_rad, HOME_LEFT, atol=1e-9)
    assert state.gripper_width_m == pytest.approx(0.088)
    assert station.time_s() == 0.0
    right = station.joint_state('right').positions_rad
    np.testing.assert_allclose(right, HOME_LEFT * [-1, 1, 1, 1, -1, -1])


def test_home_positions_are_the_home_keyframe(station):
    np.testing.assert_allclose(station.home_positions_rad('left'), HOME_LEFT)
    np.testing.assert_allclose(
        station.home_positions_rad('right'), HOME_LEFT * [-1, 1, 1, 1, -1, -1]
    )


def test_calibration_reports_table_and_bases(station):
    assert station.table_height_m() == pytest.approx(0.765)
    base = station.arm_base('right').world_from_base
    np.testing.assert_allclose(base[:3, 3], [0.30, -0.45, 0.765], atol=1e-9)
    np.testing.assert_allclose(base[:3, 0], [0.0, 1.0, 0.0], atol=1e-6)


def test_joint_limits_are_the_vendor_soft_limits(station):
    limits = station.joint_limits('left')
    np.testing.assert_allclose(limits.upper_rad, [1.57, 3.6, 3.0, 1.29, 1.48, 1.74])
    np.testing.assert_allclose(limits.lower_rad, [-1.57, 0.0, 0.0, -1.29, -1.48, -1.74])
    assert limits.gripper_max_width_m == pytest.approx(0.088)


def test_unknown_arm_and_camera_are_refused_with_valid_names(station):
    with pytest.raises(ValueError, match="did you mean 'left'"):
        station.joint_state('lft')
    with pytest.raises(ValueError, match="valid: 'head'"):
        station.capture('top')
    with pytest.raises(ValueError, match="unknown keyframe 'hom'"):
        station.reset('hom')


def test_follow_joint_trajectory_reaches_each_waypoint(station):
    target = HOME_LEFT + [0.3, -0.2, 0.2, 0.1, 0.2, 0.3]
    result = station.follow_joint_trajectory('left', np.array([target, HOME_LEFT]), [1.0, 2.0])
    assert result.completed, result.reason
    assert result.duration_s == pytest.approx(2.0, abs=0.1)
    np.testing.assert_allclose(station.joint_state('left').positions_rad, HOME_LEFT, atol=0.02)
    assert station.time_s() == pytest.approx(result.duration_s)
    # the other arm held still
    np.testing.assert_allclose(
        station.joint_state('right').positions_rad, HOME_LEFT * [-1, 1, 1, 1, -1, -1], atol=2e-3
    )


def test_trajectory_outside_soft_limits_is_refused_and_nothing_moves(station):
    target = HOME_LEFT.copy()
    target[3] = -1.35
    result = station.follow_joint_trajectory('left', target[None, :], [1.0])
    assert not result.completed
    assert 'joint4=-1.350 rad vs soft limits [-1.290, 1.290]' in result.reason
    assert station.time_s() == 0.0
    np.testing.assert_array_equal(station.joint_state('left').positions_rad, HOME_LEFT)


def test_trajectory_faster_than_the_speed_limit_is_refused(station):
    target = HOME_LEFT + [1.0, 0, 0, 0, 0, 0]
    result = station.follow_joint_trajectory('left', target[None, :], [0.1])
    assert not result.completed
    assert 'joint1 needs 10.00 rad/s vs limit 5.00 rad/s' in result.reason


@pytest.mark.parametrize(
    ('positions', 'times', 'message'),
    [
        (np.zeros((2, 5)), [1.0, 2.0], r'shape \(2, 5\) vs \(N, 6\)'),
        (np.zeros((2, 6)), [1.0], r'times_s shape \(1,\) vs \(2,\)'),
        (np.zeros((2, 6)), [2.0, 1.0], 'strictly increasing'),
        (np.full((1, 6), np.nan), [1.0], 'NaN or inf'),
    ],
)
def test_malformed_trajectories_raise(station, positions, times, message):
    with pytest.raises(ValueError, match=message):
        station.follow_joint_trajectory('left', positions, times)


def test_cancel_from_another_thread_stops_the_motion(station):
    token = CancelToken()
    target = HOME_LEFT + [0.5, 0, 0, 0, 0, 0]
    results = []
    worker = threading.Thread(
        target=lambda: results.append(
            station.follow_joint_trajectory('left', target[None, :], [60.0], cancel=token)
        )
    )
    worker.start()
    while station.time_s() < 1.0:
        pass
    token.cancel('watchdog')
    worker.join(timeout=30)
    (result,) = results
    assert not result.completed and result.reason == 'cancelled: watchdog'
    assert 1.0 <= result.duration_s < 60.0
    moved = station.joint_state('left').positions_rad[0] - HOME_LEFT[0]
    assert 0.0 < moved < 0.5


def test_two_arms_move_at_once_from_two_threads(station):
    left = HOME_LEFT + [0.2, 0, 0, 0, 0, 0]
    right = HOME_LEFT * [-1, 1, 1, 1, -1, -1] - [0.2, 0, 0, 0, 0, 0]
    results = {}

    def move(arm, target):
        results[arm] = station.follow_joint_trajectory(arm, target[None, :], [10.0])

    threads = [threading.Thread(target=move, args=a) for a in (('left', left), ('right', right))]
    threads[0].start()
    while station.time_s() < 0.1:  # the second motion starts while the first runs
        pass
    threads[1].start()
    for thread in threads:
        thread.join(timeout=60)
    assert results['left'].completed and results['right'].completed
    np.testing.assert_allclose(station.joint_state('left').positions_rad, left, atol=0.02)
    np.testing.assert_allclose(station.joint_state('right').positions_rad, right, atol=0.02)
    assert station.time_s() < 19.0  # overlapped, not one after the other (20 s)


def test_gripper_closes_and_opens_to_the_commanded_width(station):
    closed = station.command_gripper('right', 0.0)
    assert closed.reached and closed.width_m < 0.001 and not closed.stalled
    half = station.command_gripper('right', 0.05)
    assert half.reached and half.width_m == pytest.approx(0.05, abs=0.002)
    assert station.joint_state('right').gripper_width_m == pytest.approx(half.width_m)


def test_gripper_width_outside_the_stroke_is_refused(station):
    result = station.command_gripper('left', 0.1)
    assert not result.reached and 'width 0.100 m vs stroke 0..0.088 m' in result.reason
    assert station.time_s() == 0.0


def test_gripper_stalls_on_a_cube_and_reports_its_width(cube_station, cube_model):
    station = cube_station
    truth = station.privileged_state()
    cube = truth.body_pose('cube')
    tcp = truth.data.site('left/tcp')
    # put the cube between the open fingers, square to them, then close
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, tcp.xmat)
    truth.set_body_pose('cube', np.concatenate([tcp.xpos, quat]))
    closed = station.command_gripper('left', 0.0)
    assert closed.stalled and not closed.reached
    assert closed.width_m == pytest.approx(0.05, abs=0.003)
    assert 'something is between the fingers' in closed.reason
    assert cube[2] == pytest.approx(0.79, abs=1e-3)


def test_capture_renders_rgb_and_depth_only_when_enabled(station, cube_station):
    frame = station.capture('head')
    assert frame.rgb.shape == (480, 640, 3) and frame.rgb.dtype == np.uint8
    assert frame.depth_m is None and frame.rgb.std() > 10
    with pytest.raises(ValueError, match='depth_enabled=False'):
        station.capture('head', depth=True)
    deep = cube_station.capture('head', depth=True)
    # the optical axis meets the table 0.543 m below the camera at 60 deg: 0.627 m
    assert deep.depth_m[240, 320] == pytest.approx(0.543 / np.cos(np.radians(30)), abs=0.01)


def test_camera_model_projects_a_world_point_onto_its_rendered_pixel(cube_station):
    truth = cube_station.privileged_state()
    truth.set_body_pose('cube', [0.12, 0.05, 0.79])
    for camera in ('head', 'right_wrist'):
        frame = cube_station.capture(camera)
        red = (frame.rgb[..., 0] > 120) & (frame.rgb[..., 1] < 60) & (frame.rgb[..., 2] < 60)
        assert red.sum() > 50, camera
        rows, cols = np.nonzero(red)
        model = frame.model
        camera_from_world = np.linalg.inv(model.world_from_camera)
        point = camera_from_world @ [0.12, 0.05, 0.79, 1.0]
        u, v, w = model.intrinsics.matrix @ point[:3]
        # the cube centre projects inside its visible blob, near the blob's centre
        assert abs(u / w - cols.mean()) < 12 and abs(v / w - rows.mean()) < 12, camera


def test_wrist_camera_model_follows_the_arm(station):
    before = station.camera_model('left_wrist')
    head_before = station.camera_model('head')
    target = HOME_LEFT + [0.3, 0, 0, 0, 0, 0]
    assert station.follow_joint_trajectory('left', target[None, :], [1.0]).completed
    after = station.camera_model('left_wrist')
    assert np.linalg.norm(after.position_m - before.position_m) > 0.05
    np.testing.assert_allclose(station.camera_model('head').world_from_camera,
                               head_before.world_from_camera)
    rotation = after.world_from_camera[:3, :3]
    np.testing.assert_allclose(rotation.T @ rotation, np.eye(3), atol=1e-9)
    assert np.linalg.det(rotation) == pytest.approx(1.0)


def test_load_model_swaps_the_scene_and_resets(station, cube_model):
    station.follow_joint_trajectory('left', (HOME_LEFT + 0.1)[None, :], [0.5])
    station.load_model(cube_model)
    assert station.time_s() == 0.0
    np.testing.assert_allclose(station.joint_state('left').positions_rad, HOME_LEFT)
    assert station.privileged_state().body_pose('cube')[2] == pytest.approx(0.79)
    assert station.capture('head').rgb.shape == (480, 640, 3)


def test_model_without_station_names_is_refused():
    model = mujoco.MjModel.from_xml_string('<mujoco><worldbody/></mujoco>')
    with pytest.raises(ModelError, match='left/joint1'):
        MujocoStation(model)


def test_control_rate_must_divide_the_physics_rate(bare_model):
    with pytest.raises(ConfigError, match='control_rate_hz=100'):
        MujocoStation(bare_model, StationConfig(control_rate_hz=100.0))


def test_render_size_beyond_the_offscreen_buffer_is_refused(bare_model):
    with pytest.raises(ConfigError, match='render size 2000x480'):
        MujocoStation(bare_model, StationConfig(render_width=2000))


def test_privileged_state_places_only_free_bodies():
    station = MujocoStation(station_spec().compile())
    truth = station.privileged_state()
    with pytest.raises(ValueError, match='no free joint'):
        truth.set_body_pose('left/link3', [0.0, 0.0, 1.0])
    with pytest.raises(KeyError, match='unknown body'):
        truth.body_pose('cub')


def test_capture_from_another_thread_while_an_arm_moves(station):
    target = HOME_LEFT + [0.4, 0, 0, 0, 0, 0]
    results = []
    worker = threading.Thread(
        target=lambda: results.append(
            station.follow_joint_trajectory('left', target[None, :], [20.0])
        )
    )
    worker.start()
    stamps = []
    while worker.is_alive() and len(stamps) < 3:
        frame = station.capture('left_wrist')
        stamps.append(frame.stamp_s)
        assert frame.model.stamp_s == frame.stamp_s
    worker.join(timeout=60)
    assert results[0].completed, results[0].reason
    assert stamps == sorted(stamps)


def test_trajectory_into_the_table_stops_blocked_with_the_reason(station):
    # joints that would put the left TCP at (-0.20, -0.10, 0.70): 6.5 cm inside the table
    below_table = np.array([-0.1455, 2.1662, 1.2647, -0.6833, 0.2915, -0.245])
    result = station.follow_joint_trajectory('left', below_table[None, :], [1.5])
    assert not result.completed
    assert 'rad from its target vs tolerance 0.01 rad' in result.reason
    assert 'the arm may be blocked' in result.reason
    tcp_z = station.privileged_state().data.site('left/tcp').xpos[2]
    assert tcp_z > station.table_height_m()

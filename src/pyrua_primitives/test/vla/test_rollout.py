"""robo.vla on the MuJoCo twin against a scripted openpi-protocol policy server."""

import time

import numpy as np
from pyrua_primitives.cancel import CancelToken
from pyrua_primitives.kinematics.inverse import solve_ik
from pyrua_primitives.kinematics.orientation import top_down_rotation
from pyrua_primitives.library import ACTING, LibraryConfig, PrimitiveLibrary
from pyrua_primitives.vla import VlaConfig, VlaResult
from pyrua_sim.twin import load_twin
import pytest

TABLE_Z = 0.765
OBSERVATION_KEYS = {'observation/image', 'observation/wrist_image', 'observation/state',
                    'prompt'}


@pytest.fixture(scope='module')
def vla_twin():
    """Load the pick_place twin (seed 0, layout 0); the rollouts use its station only."""
    with load_twin('pick_place', 0, 0) as loaded:
        yield loaded


def _library(twin, endpoint, **vla):
    twin.reset()
    return PrimitiveLibrary(twin.station, LibraryConfig(vla=VlaConfig(endpoint=endpoint, **vla)))


@pytest.fixture
def lib(vla_twin, policy_server):
    """Return a library over the reset twin, its VLA endpoint the scripted server."""
    return _library(vla_twin, f'127.0.0.1:{policy_server.port}')


def _sweep(rate_rad_per_step, horizon=8):
    """Return a policy that turns joint1 by ``rate`` per step from the observed state."""
    def respond(observation, count):
        state = np.asarray(observation['observation/state'], dtype=float)
        chunk = np.tile(state, (horizon, 1))
        chunk[:, 0] += rate_rad_per_step * np.arange(1, horizon + 1)
        return {'actions': chunk}
    return respond


def test_vla_is_an_acting_primitive_with_a_model_facing_docstring(lib):
    assert 'vla' in lib.primitives() and 'vla' in ACTING
    doc = lib.vla.__doc__
    assert ':returns:' in doc and 'policy_error' in doc and 'unsafe' in doc


def test_rollout_moves_the_arm_and_stops_after_the_requested_steps(lib, policy, vla_twin):
    policy.reset(_sweep(0.01))
    start = lib.joints('left').positions_rad.copy()
    right = lib.joints('right').positions_rad.copy()
    progress = []
    result = lib.vla('turn left', 'left', steps=20, feedback=progress.append)
    assert isinstance(result, VlaResult)
    assert result.completed and result.stop_reason == 'steps' and result.reason == ''
    assert result.steps_run == 20 and progress[-1] == 20 and progress == sorted(progress)
    # 8 + 8 + 4 steps: three inferences, each chunk re-based on the measured state.
    assert len(policy.observations) == 3
    moved = lib.joints('left').positions_rad - start
    assert moved[0] == pytest.approx(0.20, abs=0.02)
    assert np.allclose(moved[1:], 0.0, atol=0.01)
    assert np.allclose(lib.joints('right').positions_rad, right, atol=1e-3)
    assert result.duration_s == pytest.approx(20 / 15.0, abs=0.6)
    assert len(repr(result)) <= 120 and "'turn left'" in repr(result)


def test_policy_receives_images_state_and_prompt_and_nothing_privileged(lib, policy,
                                                                        vla_twin):
    lib.vla('pick up the blue block', 'right', steps=3)
    first = policy.observations[0]
    assert set(first) == OBSERVATION_KEYS
    for key in ('observation/image', 'observation/wrist_image'):
        assert first[key].shape == (224, 224, 3) and first[key].dtype == np.uint8
        assert first[key].std() > 5.0  # a rendered scene, not a blank frame
    state = first['observation/state']
    assert state.shape == (7,) and state.dtype == np.float32
    measured = vla_twin.station.joint_state('right')
    assert np.allclose(state[:6], measured.positions_rad, atol=1e-4)
    assert state[6] == pytest.approx(measured.gripper_width_m / 0.088, abs=1e-3)
    assert first['prompt'] == 'pick up the blue block'


def test_observation_layout_follows_the_config(vla_twin, policy_server, policy):
    lib = _library(vla_twin, f'127.0.0.1:{policy_server.port}', head_image_key='cam_high',
                   wrist_image_key='', image_height_px=96, image_width_px=128,
                   channels_first=True)
    lib.vla('wave', 'left', steps=1)
    first = policy.observations[0]
    assert set(first) == {'cam_high', 'observation/state', 'prompt'}
    assert first['cam_high'].shape == (3, 96, 128)


def test_gripper_target_is_the_normalised_opening(lib, policy, vla_twin):
    def close_half(observation, count):
        chunk = np.tile(np.asarray(observation['observation/state'], float), (4, 1))
        chunk[:, 6] = 0.5
        return {'actions': chunk}

    policy.reset(close_half)
    result = lib.vla('half close', 'left', steps=4)
    assert result.completed, result.reason
    assert vla_twin.station.joint_state('left').gripper_width_m == pytest.approx(0.044, abs=0.003)


def test_cancel_from_another_thread_stops_between_chunks(lib, policy):
    token = CancelToken()

    def cancel_on_second(observation, count):
        if count == 2:
            token.cancel('watchdog')  # runs on the server's thread
        return _sweep(0.005)(observation, count)

    policy.reset(cancel_on_second)
    result = lib.vla('sweep', 'left', steps=40, cancel=token)
    assert not result.completed and result.stop_reason == 'cancelled'
    assert result.steps_run == 8 and 'watchdog' in result.reason


def test_dead_endpoint_is_a_policy_error_result_not_a_hang(vla_twin, closed_port):
    lib = _library(vla_twin, f'127.0.0.1:{closed_port}')
    start = time.monotonic()
    result = lib.vla('pick', 'left', steps=10)
    assert time.monotonic() - start < 3.0
    assert not result.completed and result.stop_reason == 'policy_error'
    assert result.steps_run == 0 and 'not reachable' in result.reason


def test_no_endpoint_says_how_to_configure_a_vla(vla_twin):
    twin = vla_twin
    twin.reset()
    result = PrimitiveLibrary(twin.station).vla('pick', 'left', steps=10)
    assert not result.completed and result.stop_reason == 'policy_error'
    assert 'no VLA policy configured' in result.reason
    assert repr(result).startswith('VlaResult(completed=False, left, policy_error after 0 steps')
    assert 'set library.vla.endpoint' in repr(result)


def test_malformed_chunk_stops_with_what_was_wrong(lib, policy):
    policy.reset(lambda obs, count: {'actions': np.zeros((5, 14), np.float32)})
    result = lib.vla('pick', 'left', steps=10)
    assert result.stop_reason == 'policy_error' and result.steps_run == 0
    assert 'shape (5, 14) vs (H, 7)' in result.reason


def test_missing_actions_and_gripper_out_of_range_are_policy_errors(lib, policy):
    policy.reset(lambda obs, count: {'action': np.zeros((5, 7))})
    result = lib.vla('pick', 'left', steps=10)
    assert result.stop_reason == 'policy_error' and "no 'actions'" in result.reason

    def wide(observation, count):
        chunk = np.tile(np.asarray(observation['observation/state'], float), (4, 1))
        chunk[2, 6] = 88.0  # millimetres instead of the normalised opening
        return {'actions': chunk}

    policy.reset(wide)
    result = lib.vla('pick', 'left', steps=10)
    assert result.stop_reason == 'policy_error' and 'gripper value 88.000 at action 2' in \
        result.reason


def test_unsafe_target_is_refused_by_the_gate_and_the_arm_does_not_move(lib, policy):
    def out_of_limits(observation, count):
        chunk = np.tile(np.asarray(observation['observation/state'], float), (8, 1))
        chunk[5:, 0] = 2.0  # joint1 beyond its +1.57 rad soft limit at step 6
        return {'actions': chunk}

    policy.reset(out_of_limits)
    result = lib.vla('reach', 'left', steps=8)
    assert not result.completed and result.stop_reason == 'unsafe'
    assert result.steps_run == 4 and result.reason.startswith('in steps 5-8: refused by the '
                                                              'safety gate: joint1=+2.000 rad')
    assert lib.joints('left').positions_rad[0] < 1.57


def test_too_fast_target_is_refused_before_anything_moves(lib, policy):
    def jump(observation, count):
        chunk = np.tile(np.asarray(observation['observation/state'], float), (4, 1))
        chunk[:, 1] += 0.8  # 0.8 rad in one 1/15 s step: 12 rad/s
        return {'actions': chunk}

    policy.reset(jump)
    start = lib.joints('left').positions_rad.copy()
    result = lib.vla('jump', 'left', steps=4)
    assert result.stop_reason == 'unsafe' and result.steps_run == 0
    assert 'speed' in result.reason
    assert np.allclose(lib.joints('left').positions_rad, start, atol=1e-3)


def test_descent_into_the_table_is_refused_before_the_finger_tips_reach_it(lib, policy,
                                                                           vla_twin):
    station = vla_twin.station
    pose = np.eye(4)
    pose[:3, :3] = top_down_rotation(0.0)
    pose[:3, 3] = (-0.30, -0.15, TABLE_Z + 0.005)  # finger tips 15 mm inside the table
    ik = solve_ik(pose, station.joint_state('left').positions_rad,
                  world_from_base=station.arm_base('left').world_from_base, free_roll=True)
    assert ik.found, ik.reason

    def toward_the_table(observation, count):
        # A joint-space line to the IK solution, the largest joint 0.03 rad per step.
        state = np.asarray(observation['observation/state'], float)
        delta = ik.q_rad - state[:6]
        fractions = np.minimum(np.arange(1, 9) * 0.03 / max(np.abs(delta).max(), 1e-9), 1.0)
        chunk = np.tile(state, (8, 1))
        chunk[:, :6] = state[:6] + fractions[:, None] * delta
        return {'actions': chunk}

    policy.reset(toward_the_table)
    result = lib.vla('press the table', 'left', steps=60)
    assert result.stop_reason == 'unsafe' and 'safety gate' in result.reason, result
    assert 'finger tips' in result.reason and result.steps_run > 0
    assert lib.pose('left').position_m[2] - 0.02 > TABLE_Z + 0.002


@pytest.mark.parametrize('args, error, match', [
    (('pick', 'lft', 5), ValueError, "did you mean 'left'"),
    (('', 'left', 5), ValueError, 'instruction is empty'),
    (('pick', 'left', 0), ValueError, r'steps=0 vs allowed \[1, 1000\]'),
    (('pick', 'left', 2.5), TypeError, 'steps must be an integer'),
])
def test_misuse_raises_before_anything_is_sent(lib, policy, args, error, match):
    with pytest.raises(error, match=match):
        lib.vla(*args)
    assert policy.observations == []


def test_result_survives_the_vla_rollout_action_message():
    pytest.importorskip('rosbags.typesys', reason='rosbags: see requirements/test.txt')
    from pyrua_primitives.conversions.actions import result_from_message, result_to_message
    from pyrua_primitives.conversions.interfaces import rosbags_factory, rosbags_typestore

    make = rosbags_factory(rosbags_typestore())
    result = VlaResult(False, 'in steps 5-8: refused by the safety gate', 'right', 'wipe', 4,
                       'unsafe', 0.27)
    assert result_from_message('vla', result_to_message('vla', result, make)) == result

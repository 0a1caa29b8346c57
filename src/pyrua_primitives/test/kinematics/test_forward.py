import math

import numpy as np
from pyrua_primitives.kinematics import arx_x5
from pyrua_primitives.kinematics.forward import link_frames, tcp_jacobian, tcp_pose
import pytest

# Reference §1.2 "zero-pose origins in base frame (DERIVED FK)", metres.
ZERO_POSE_ORIGINS = {
    2: (0.02, 0.0, 0.1005),
    3: (-0.244, 0.0, 0.1005),
    4: (0.001, 0.0, 0.1565),
    5: (0.069, 0.0, 0.243),
    6: (0.098, 0.0, 0.1565),
}


def _random_joints(rng, count):
    return rng.uniform(arx_x5.LOWER_LIMITS_RAD, arx_x5.UPPER_LIMITS_RAD, size=(count, 6))


def test_zero_pose_link_origins_match_reference_table():
    frames = link_frames(np.zeros(6))
    for link, expected in ZERO_POSE_ORIGINS.items():
        np.testing.assert_allclose(frames[link, :3, 3], expected, atol=1e-3)
    # At zero joints link6 axes equal base axes; the TCP sits 0.137 m along link6 +x.
    np.testing.assert_allclose(frames[6, :3, :3], np.eye(3), atol=1e-12)
    np.testing.assert_allclose(frames[7, :3, 3], frames[6, :3, 3] + [0.137, 0.0, 0.0])


def test_world_from_base_moves_every_frame():
    mount = np.eye(4)
    mount[:3, :3] = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    mount[:3, 3] = (-0.3, -0.45, 0.765)
    q = np.array([0.2, 1.9, 1.2, -0.8, 0.1, 0.3])
    np.testing.assert_allclose(tcp_pose(q, mount), mount @ tcp_pose(q), atol=1e-12)


def test_jacobian_matches_finite_differences():
    rng = np.random.default_rng(3)
    for q in _random_joints(rng, 5):
        jac = tcp_jacobian(link_frames(q))
        for i in range(6):
            dq = np.zeros(6)
            dq[i] = 1e-6
            plus, minus = tcp_pose(q + dq), tcp_pose(q - dq)
            velocity = (plus[:3, 3] - minus[:3, 3]) / 2e-6
            np.testing.assert_allclose(jac[:3, i], velocity, atol=1e-7)
            spin = (plus[:3, :3] - minus[:3, :3]) / 2e-6 @ tcp_pose(q)[:3, :3].T
            np.testing.assert_allclose(jac[3:, i], (spin[2, 1], spin[0, 2], spin[1, 0]),
                                       atol=1e-7)


@pytest.mark.parametrize('bad', [np.zeros(5), np.zeros(7), [0.0, 0.0, math.nan, 0.0, 0.0, 0.0]])
def test_fk_rejects_wrong_length_or_nan_joints(bad):
    with pytest.raises(ValueError, match='q_rad'):
        tcp_pose(bad)


def test_fk_rejects_malformed_mount():
    with pytest.raises(ValueError, match=r'world_from_base has shape \(3, 3\)'):
        tcp_pose(np.zeros(6), np.eye(3))


def test_fk_matches_mujoco_tcp_site_for_random_joints():
    mujoco = pytest.importorskip('mujoco')
    from pyrua_sim.model import station_spec

    model = station_spec().compile()
    data = mujoco.MjData(model)
    rng = np.random.default_rng(7)
    for arm in ('left', 'right'):
        base = model.body(f'{arm}/base_link').id
        site = model.site(f'{arm}/tcp').id
        addresses = [model.jnt_qposadr[model.joint(f'{arm}/joint{i}').id] for i in range(1, 7)]
        for q in _random_joints(rng, 20):
            data.qpos[addresses] = q
            mujoco.mj_kinematics(model, data)
            mount = np.eye(4)
            mount[:3, :3] = data.xmat[base].reshape(3, 3)
            mount[:3, 3] = data.xpos[base]
            pose = tcp_pose(q, mount)
            np.testing.assert_allclose(pose[:3, 3], data.site_xpos[site], atol=1e-4)
            np.testing.assert_allclose(pose[:3, :3], data.site_xmat[site].reshape(3, 3),
                                       atol=1e-6)

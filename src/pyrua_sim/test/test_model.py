"""The station MJCF compiles, matches the X5A kinematics and steps without warnings."""

import mujoco
import numpy as np
from pyrua_sim.model import MODEL_DIR, station_spec
import pytest

ARM_BASES = {'left': (-0.30, -0.45, 0.765), 'right': (0.30, -0.45, 0.765)}
# X5A zero-pose origins in the base frame (reference arx_x5.md section 1.2, DERIVED FK)
ZERO_POSE_ORIGINS = {
    'link2': (0.02, 0.0, 0.1005),
    'link3': (-0.244, 0.0, 0.1005),
    'link4': (0.001, 0.0, 0.1565),
    'link5': (0.06875, -0.0005, 0.243),
    'link6': (0.0977, -0.0005, 0.1565),
}


def _world_from_base(arm):
    # yaw +90 deg: base x -> world +y, base y -> world -x
    rotation = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    return rotation, np.array(ARM_BASES[arm])


def test_model_files_exist_and_arm_is_declared_once():
    station = (MODEL_DIR / 'station.xml').read_text()
    assert (MODEL_DIR / 'arx_x5.xml').is_file()
    assert station.count('<model name="arx_x5" file="arx_x5.xml"/>') == 1
    assert station.count('<attach model="arx_x5"') == 2
    assert 'mesh' not in (MODEL_DIR / 'arx_x5.xml').read_text().replace('no meshes', '')


def test_station_has_both_arms_cameras_and_tcp_sites(bare_model):
    joints = {bare_model.joint(i).name for i in range(bare_model.njnt)}
    for arm in ('left', 'right'):
        assert {f'{arm}/joint{i}' for i in range(1, 9)} <= joints
        assert bare_model.site(f'{arm}/tcp').id >= 0
        assert bare_model.actuator(f'{arm}/gripper').id >= 0
    assert bare_model.camera('head').id >= 0
    assert bare_model.nkey == 1 and bare_model.key(0).name == 'home'


def test_options_follow_the_grasp_settings(bare_model):
    assert bare_model.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC
    assert bare_model.opt.impratio == pytest.approx(10.0)
    assert bare_model.opt.integrator == mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    assert 0.002 <= bare_model.opt.timestep <= 0.004


@pytest.mark.parametrize('arm', ['left', 'right'])
def test_zero_pose_matches_x5a_kinematics(bare_model, arm):
    data = mujoco.MjData(bare_model)
    mujoco.mj_kinematics(bare_model, data)
    rotation, base = _world_from_base(arm)
    for link, origin in ZERO_POSE_ORIGINS.items():
        expected = base + rotation @ np.array(origin)
        np.testing.assert_allclose(data.body(f'{arm}/{link}').xpos, expected, atol=1e-6)
    tcp = base + rotation @ (np.array(ZERO_POSE_ORIGINS['link6']) + [0.137, 0.0, 0.0])
    np.testing.assert_allclose(data.site(f'{arm}/tcp').xpos, tcp, atol=1e-6)


def test_tcp_is_the_centre_of_the_distal_pads(bare_model):
    data = mujoco.MjData(bare_model)
    for finger in ('left/joint7', 'left/joint8'):
        data.qpos[bare_model.joint(finger).qposadr[0]] = 0.02
    mujoco.mj_kinematics(bare_model, data)
    pads = [
        g for g in range(bare_model.ngeom)
        if bare_model.body(bare_model.geom_bodyid[g]).name in ('left/link7', 'left/link8')
        and bare_model.geom_contype[g] == 1 and bare_model.geom_size[g][2] < 0.01
    ]
    assert len(pads) == 2
    centre = data.geom_xpos[pads].mean(axis=0)
    np.testing.assert_allclose(centre, data.site('left/tcp').xpos, atol=1e-3)
    # inner faces 0.04 m apart when each finger is out 0.02 m: width = joint7 + joint8
    gap = np.linalg.norm(data.geom_xpos[pads[0]] - data.geom_xpos[pads[1]]) - 2 * 0.002
    assert gap == pytest.approx(0.04, abs=1e-6)


def test_actuator_ranges_lie_inside_joint_ranges(bare_model):
    for a in range(bare_model.nu):
        joint = bare_model.actuator_trnid[a][0]
        low, high = bare_model.actuator_ctrlrange[a]
        j_low, j_high = bare_model.jnt_range[joint]
        name = bare_model.actuator(a).name
        if name.endswith('gripper'):
            assert low < j_low, 'the gripper must command past closed so it squeezes'
            assert high == pytest.approx(j_high)
        else:
            assert j_low <= low < high <= j_high, name


def test_random_control_inside_ctrlrange_steps_without_warnings(bare_model, rng):
    data = mujoco.MjData(bare_model)
    mujoco.mj_resetDataKeyframe(bare_model, data, 0)
    low, high = bare_model.actuator_ctrlrange.T
    for _ in range(20):
        data.ctrl[:] = rng.uniform(low, high)
        for _ in range(50):
            mujoco.mj_step(bare_model, data)
    warnings = {
        mujoco.mjtWarning(i).name: w.number for i, w in enumerate(data.warning) if w.number
    }
    assert warnings == {}
    assert np.all(np.isfinite(data.qpos))


def test_home_keyframe_holds_still_above_the_table(bare_model):
    data = mujoco.MjData(bare_model)
    mujoco.mj_resetDataKeyframe(bare_model, data, 0)
    start = data.qpos.copy()
    for _ in range(500):
        mujoco.mj_step(bare_model, data)
    assert np.abs(data.qpos - start).max() < 2e-3
    for arm, sign in (('left', -1), ('right', 1)):
        tcp = data.site(f'{arm}/tcp').xpos
        assert 0.23 <= tcp[2] - 0.765 <= 0.32
        assert 0.25 <= tcp[1] - (-0.45) <= 0.35
        assert sign * tcp[0] > 0


def test_home_keyframe_pads_objects_added_later():
    spec = station_spec()
    body = spec.worldbody.add_body(name='block', pos=[0.1, 0.0, 0.79])
    body.add_freejoint()
    body.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.02] * 3)
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_kinematics(model, data)
    np.testing.assert_allclose(data.body('block').xpos, [0.1, 0.0, 0.79])


def _work_area_seen(model, data, renderer, camera):
    """Return a bool per work-area point: inside the image and not hidden by anything."""
    camera_id = model.camera(camera).id
    renderer.update_scene(data, camera=camera_id)
    segment = renderer.render()[..., 0]
    points = np.array([
        (x, y, 0.765) for x in np.linspace(-0.45, 0.45, 19) for y in np.linspace(-0.30, 0.05, 8)
    ])
    local = (points - data.cam_xpos[camera_id]) @ data.cam_xmat[camera_id].reshape(3, 3)
    focal = 240.0 / np.tan(np.radians(model.cam_fovy[camera_id]) / 2)
    depth = np.maximum(-local[:, 2], 1e-9)
    u, v = 320 + focal * local[:, 0] / depth, 240 - focal * local[:, 1] / depth
    inside = (local[:, 2] < 0) & (u >= 0) & (u < 640) & (v >= 0) & (v < 480)
    seen = np.zeros(len(points), bool)
    rows, cols = v[inside].astype(int), u[inside].astype(int)
    seen[inside] = segment[rows, cols] == model.geom('table_top').id
    return seen


def test_home_cameras_see_the_work_area(bare_model):
    data = mujoco.MjData(bare_model)
    mujoco.mj_resetDataKeyframe(bare_model, data, 0)
    mujoco.mj_forward(bare_model, data)
    renderer = mujoco.Renderer(bare_model, 480, 640)
    try:
        renderer.enable_segmentation_rendering()
        left, right, head = (
            _work_area_seen(bare_model, data, renderer, camera)
            for camera in ('left/wrist_camera', 'right/wrist_camera', 'head')
        )
    finally:
        renderer.close()
    assert left.mean() >= 0.55 and right.mean() >= 0.55
    assert (left | right).mean() >= 0.75
    assert head.mean() >= 0.98


def test_the_layout_reads_table_and_bases_from_the_compiled_model(station):
    from pyrua_sim import layout
    from pyrua_sim.model import station_geometry

    geometry = station_geometry()
    assert layout.TABLE_Z == geometry.table_z_m
    assert layout.ARM_BASES_XY == geometry.arm_bases_xy and set(geometry.arm_bases_xy) == {
        'left', 'right'}
    # the sampler's numbers are the ones the station reports to the primitives
    assert geometry.table_z_m == pytest.approx(station.table_height_m(), abs=1e-6)
    for arm, xy in geometry.arm_bases_xy.items():
        assert xy == pytest.approx(station.arm_base(arm).world_from_base[:2, 3], abs=1e-6)

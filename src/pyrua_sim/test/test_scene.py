import mujoco
import numpy as np
from pyrua_sim.layout import TABLE_Z
from pyrua_sim.scene import build_scene
from pyrua_sim.tasks import SceneState, TASKS
from pyrua_sim.tasks.predicates import button_press_m, in_bowl, peg_inserted, PRESSED_M, stacked_on
import pytest


def _hold_arms(model, data):
    data.ctrl[:] = [data.qpos[model.jnt_qposadr[model.actuator_trnid[k, 0]]]
                    if model.actuator_trntype[k] == mujoco.mjtTrn.mjTRN_JOINT else 0.0
                    for k in range(model.nu)]


def _simulate(model, data, seconds):
    _hold_arms(model, data)
    for _ in range(int(seconds / model.opt.timestep)):
        mujoco.mj_step(model, data)


def _state(model, data, layout):
    poses = {}
    for spec in layout.objects:
        body = model.body(spec.name).id
        poses[spec.name] = np.concatenate([data.xpos[body], data.xquat[body]])
    return SceneState(poses, {'left': 0.08, 'right': 0.08}, {'left': True, 'right': True})


def _place(model, data, name, xyz):
    joint = model.body(name).jntadr[0]
    adr = model.jnt_qposadr[joint]
    data.qpos[adr:adr + 3] = xyz
    data.qpos[adr + 3:adr + 7] = (1, 0, 0, 0)
    data.qvel[model.jnt_dofadr[joint]:model.jnt_dofadr[joint] + 6] = 0
    mujoco.mj_forward(model, data)


@pytest.fixture(scope='module')
def scenes():
    out = {}
    for name, task in TASKS.items():
        layout = task.sample_layout(0, 25 if task.randomizes else 0)
        out[name] = (layout, build_scene(layout))
    return out


def test_every_task_scene_has_a_body_per_layout_object(scenes):
    for layout, model in scenes.values():
        for spec in layout.objects:
            body = model.body(spec.name)
            if spec.kind in ('block', 'peg', 'cylinder', 'ball'):
                assert model.jnt_type[body.jntadr[0]] == mujoco.mjtJoint.mjJNT_FREE
            np.testing.assert_allclose(model.body_pos[body.id][:2], spec.pose[:2], atol=1e-9)


def test_objects_rest_where_the_layout_puts_them(scenes):
    for layout, model in scenes.values():
        data = mujoco.MjData(model)
        mujoco.mj_forward(model, data)
        _simulate(model, data, 0.5)
        for spec in layout.objects:
            if spec.kind in ('block', 'peg', 'cylinder', 'ball'):
                moved = np.linalg.norm(data.xpos[model.body(spec.name).id] - spec.pose[:3])
                assert moved < 0.003, f'{spec.name} of {layout} drifted {moved * 1000:.1f} mm'


def test_block_dropped_into_a_bowl_counts_as_in_the_bowl(scenes):
    layout, model = scenes['pick_place']
    (block,), (goal,) = layout.with_role('target'), layout.with_role('goal')
    data = mujoco.MjData(model)
    _place(model, data, block.name, (goal.xy[0] + 0.01, goal.xy[1], TABLE_Z + 0.08))
    _simulate(model, data, 1.0)
    assert in_bowl(_state(model, data, layout), block, goal)


def test_block_dropped_on_a_block_counts_as_stacked(scenes):
    layout, model = scenes['stack_blocks']
    (upper,), (lower,) = layout.with_role('upper'), layout.with_role('lower')
    data = mujoco.MjData(model)
    lx, ly, lz = lower.pose[:3]
    _place(model, data, upper.name, (lx + 0.005, ly, lz + 0.045))
    _simulate(model, data, 1.0)
    assert stacked_on(_state(model, data, layout), upper, lower, 0.015)


def test_peg_dropped_into_the_hole_is_inserted(scenes):
    layout, model = scenes['insert_peg']
    (peg,), (hole,) = layout.with_role('target'), layout.with_role('goal')
    data = mujoco.MjData(model)
    _place(model, data, peg.name, (hole.xy[0], hole.xy[1], TABLE_Z + 0.09))
    # align the peg with the fixture so it falls through the 3.4 cm opening
    adr = model.jnt_qposadr[model.body(peg.name).jntadr[0]]
    data.qpos[adr + 3:adr + 7] = hole.pose[3:]
    _simulate(model, data, 1.0)
    state = _state(model, data, layout)
    assert peg_inserted(state, peg, hole)
    assert state.poses[peg.name][2] == pytest.approx(TABLE_Z + 0.035, abs=0.003)


def test_button_cap_rests_up_and_is_pressed_by_a_push(scenes):
    layout, model = scenes['press_button']
    (target,) = layout.with_role('target')
    data = mujoco.MjData(model)
    _simulate(model, data, 0.3)
    assert abs(button_press_m(_state(model, data, layout), target)) < 0.001
    data.xfrc_applied[model.body(target.name).id, 2] = -8.0
    _simulate(model, data, 0.3)
    assert button_press_m(_state(model, data, layout), target) >= PRESSED_M
    data.xfrc_applied[:] = 0.0
    _simulate(model, data, 0.3)
    assert abs(button_press_m(_state(model, data, layout), target)) < 0.001


def test_unknown_object_kind_is_refused():
    from dataclasses import replace

    layout = TASKS['pick_place'].sample_layout(0, 0)
    odd = replace(layout.objects[0], kind='torus')
    with pytest.raises(ValueError, match="object kind 'torus' of 'obj/.*' is not buildable"):
        build_scene(replace(layout, objects=(odd,)))

"""A 5 cm, 80 g cube grasped top-down follows a 0.20 m lift without slipping."""

import mujoco
import numpy as np
import pytest

# link6 axes for a top-down grasp: approach (x) down, z toward +y (away from the base)
TOP_DOWN = np.column_stack([[0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def solve_ik(model, qpos, arm, target, lower, upper, orientation_weight=1.0, rotation=TOP_DOWN):
    """
    Damped least squares on the compiled model: joints that put ``arm``'s TCP at ``target``.

    The position comes first; ``rotation`` (world from link6) is met as far as the joint
    limits allow.

    :returns: six joint angles inside [lower, upper], radians.
    """
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    site = model.site(f'{arm}/tcp').id
    joints = [model.joint(f'{arm}/joint{i}') for i in range(1, 7)]
    qadr = [j.qposadr[0] for j in joints]
    dadr = [j.dofadr[0] for j in joints]
    q = data.qpos[qadr].copy()
    jac_p, jac_r = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    for _ in range(300):
        data.qpos[qadr] = q
        mujoco.mj_kinematics(model, data)
        mujoco.mj_comPos(model, data)
        quat, rotvec = np.zeros(4), np.zeros(3)
        mujoco.mju_mat2Quat(quat, (rotation @ data.site_xmat[site].reshape(3, 3).T).ravel())
        mujoco.mju_quat2Vel(rotvec, quat, 1.0)
        position_error = target - data.site_xpos[site]
        mujoco.mj_jacSite(model, data, jac_p, jac_r, site)
        jp, jr = jac_p[:, dadr], jac_r[:, dadr]
        # position first; orientation only in the position task's null space
        jp_pinv = jp.T @ np.linalg.inv(jp @ jp.T + 1e-6 * np.eye(3))
        null = np.eye(6) - jp_pinv @ jp
        jr_null = jr @ null
        turn = jr_null.T @ np.linalg.solve(jr_null @ jr_null.T + 1e-3 * np.eye(3), rotvec)
        step = jp_pinv @ position_error + orientation_weight * null @ turn
        q = np.clip(q + step, lower + 0.01, upper - 0.01)
        if np.linalg.norm(position_error) < 1e-6 and np.linalg.norm(step) < 1e-6:
            break
    return q


def test_grasped_cube_follows_a_20_cm_lift(cube_station):
    station = cube_station
    truth = station.privileged_state()
    model = truth.model
    limits = station.joint_limits('left')
    start = truth.body_pose('cube')[:3]
    grasp = start - [0.0, 0.0, 0.005]  # pads below the cube's top edge
    home = truth.data.qpos.copy()
    above = solve_ik(model, home, 'left', grasp + [0, 0, 0.10], limits.lower_rad,
                     limits.upper_rad, orientation_weight=0.3)
    at = solve_ik(model, home, 'left', grasp, limits.lower_rad, limits.upper_rad)
    approach = station.follow_joint_trajectory('left', np.array([above, at]), [1.5, 2.5])
    assert approach.completed, approach.reason
    tcp = truth.data.site('left/tcp').xpos
    assert np.linalg.norm(tcp - grasp) < 0.005

    closed = station.command_gripper('left', 0.0)
    assert closed.stalled and closed.width_m == pytest.approx(0.05, abs=0.004)

    # lift 0.20 m in 1 s along a straight line (the gripper may tilt: joint4's soft limit
    # forbids a vertical gripper that high this close to the base)
    waypoints, times = [], []
    seed = truth.data.qpos.copy()
    for k in range(1, 6):
        q = solve_ik(model, seed, 'left', grasp + [0, 0, 0.04 * k], limits.lower_rad,
                     limits.upper_rad, orientation_weight=0.0)
        seed[[model.joint(f'left/joint{i}').qposadr[0] for i in range(1, 7)]] = q
        waypoints.append(q)
        times.append(0.2 * k)
    offset_before = truth.body_pose('cube')[:3] - truth.data.site('left/tcp').xpos
    lift = station.follow_joint_trajectory('left', np.array(waypoints), times)
    assert lift.completed, lift.reason
    for _ in range(50):  # hold 0.5 s
        station.follow_joint_trajectory('left', np.array([waypoints[-1]]), [0.01])
    tcp = truth.data.site('left/tcp').xpos
    cube = truth.body_pose('cube')[:3]
    assert tcp[2] - grasp[2] == pytest.approx(0.20, abs=0.01)
    assert cube[2] - start[2] == pytest.approx(tcp[2] - grasp[2], abs=0.004)
    assert np.linalg.norm((cube - tcp) - offset_before) < 0.004
    assert station.joint_state('left').gripper_width_m == pytest.approx(0.05, abs=0.004)

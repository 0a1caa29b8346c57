"""
LIBERO as a world: the Panda station, the benchmark's success check, the oracle's labels.

Needs the ``libero`` extra (CI builds it in ``.venv-libero``); skipped elsewhere. Building a
LIBERO environment takes about 10 s, so every test here is slow.
"""

import importlib.util
import math

import numpy as np
import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec('libero') is None,
                       reason='needs the LIBERO extra: pip install -e src/pyrua_sim[libero]'),
    # robosuite 1.4 and LIBERO warn about their own deprecated dependencies at import.
    pytest.mark.filterwarnings('ignore::DeprecationWarning'),
    pytest.mark.filterwarnings('ignore::UserWarning'),
    pytest.mark.filterwarnings('ignore::FutureWarning'),
]


@pytest.fixture(scope='module')
def world():
    from pyrua_sim.benchmarks import load

    with load('libero_spatial/0', 0) as loaded:
        yield loaded


@pytest.fixture
def robo(world):
    from pyrua_primitives.library import PrimitiveLibrary

    world.reset(index=0)
    return PrimitiveLibrary(world.station)


def test_the_world_is_the_benchmarks_task_and_init_state(world):
    from pyrua_primitives.station import Station

    # the BDDL's (:language), as the benchmark's runner prompts (not the file name's wording)
    assert world.instruction == ('pick the akita black bowl between the plate and the ramekin '
                                 'and place it on the plate')
    assert world.layout.task == 'libero_spatial/0' and world.task.init_state_count == 50
    assert isinstance(world.station, Station)
    assert world.station.arms == ('arm',)
    assert world.station.cameras == ('agentview', 'robot0_eye_in_hand')
    assert world.evaluator.success() is False


def test_the_station_reports_the_panda_and_renders_on_demand(world):
    station = world.station
    state = station.joint_state('arm')
    assert state.positions_rad.shape == (7,)
    assert 0.0 < state.gripper_width_m <= 0.08
    assert math.isclose(station.table_height_m(), 0.9, abs_tol=0.05)
    frame = station.capture('agentview', depth=True)
    assert frame.rgb.shape == (256, 256, 3) and frame.rgb.std() > 10
    assert frame.depth_m.shape == (256, 256) and np.nanmin(frame.depth_m) > 0.1
    with pytest.raises(ValueError, match="unknown arm 'left'; valid: 'arm'"):
        station.joint_state('left')


def test_the_camera_model_projects_an_object_where_the_image_shows_it(world):
    from pyrua_primitives.perception.projection import project_points

    bowl = world.oracle.locate('plate_1')
    frame = world.station.capture('agentview', depth=True)
    uv, in_front = project_points(frame.model, np.array([bowl.position_m]))
    u, v = (int(round(c)) for c in uv[0])
    assert in_front[0] and 0 <= u < 256 and 0 <= v < 256
    # depth at that pixel agrees with the distance along the optical axis (the plate is flat)
    camera_z = np.linalg.inv(frame.model.world_from_camera) @ np.append(bowl.position_m, 1.0)
    assert abs(float(frame.depth_m[v, u]) - camera_z[2]) < 0.03


def test_move_to_tracks_within_a_few_millimetres_through_the_benchmark_controller(robo):
    start = robo.pose('arm')
    assert start.tilt_rad < math.radians(10)
    x, y, z = start.position_m
    for target, heading in (([x + 0.15, y + 0.1, z - 0.1], None), ([x, y, z - 0.05], 0.6)):
        result = robo.move_to('arm', target, heading=heading)
        assert result.reached, result
        assert result.error_m < 0.004
    assert math.isclose(robo.pose('arm').heading_rad, 0.6, abs_tol=math.radians(3))


def test_the_gate_refuses_a_target_below_the_table_clearance(robo):
    x, y, _ = robo.pose('arm').position_m
    result = robo.move_to('arm', [x, y, robo.station.table_height_m() + 0.01])
    assert not result.reached and 'below table clearance' in result.reason
    assert result.duration_s == 0.0


def test_grasp_width_check_sees_a_held_bowl_and_an_empty_hand(world, robo):
    bowl = world.oracle.locate('akita_black_bowl_1')
    x, y, _ = bowl.position_m
    assert robo.open_gripper('arm').width_m > 0.07
    assert robo.move_to('arm', [x + 0.045, y, bowl.top_z_m + 0.08], heading=0.0).reached
    assert robo.move_to('arm', [x + 0.045, y, bowl.top_z_m - 0.01], heading=0.0,
                        descend=True).reached
    held = robo.close_gripper('arm')
    assert held.held, held
    robo.move_to('arm', [x, y, bowl.top_z_m + 0.15])
    assert world.oracle.locate('akita_black_bowl_1').position_m[2] > bowl.position_m[2] + 0.08
    robo.open_gripper('arm')
    empty = robo.close_gripper('arm')
    assert not empty.held and 'nothing held' in empty.reason


def test_oracle_results_say_they_are_privileged(world):
    found = world.oracle.locate('plate_1')
    assert found.found and found.cameras == ('oracle',) and found.height_source == 'oracle'
    assert "oracle, note='perception: oracle (simulator ground truth)')" in repr(found)
    missing = world.oracle.locate('plate_9')
    assert not missing.found and "did you mean 'plate_1'" in missing.reason
    assert 'perception: oracle' in missing.reason


def test_a_pixel_is_grounded_in_3d_through_depth(world):
    from pyrua_primitives.library import LibraryConfig, PrimitiveLibrary
    from pyrua_primitives.perception.projection import project_points

    world.reset(index=0)
    robo = PrimitiveLibrary(world.station, LibraryConfig(use_depth=True))
    bowl = world.oracle.locate('akita_black_bowl_2')
    rim = np.array([bowl.position_m[0], bowl.position_m[1] - bowl.size_m[1] / 2 + 0.005,
                    bowl.top_z_m])
    (u, v), = project_points(world.station.camera_model('agentview'), rim)[0]
    seen = robo.back_project('agentview', float(u), float(v), depth=True)
    assert seen.hit and abs(seen.point_m[2] - bowl.top_z_m) < 0.02, seen
    with pytest.raises(ValueError, match='depth is not enabled'):
        PrimitiveLibrary(world.station).back_project('agentview', u, v, depth=True)


def test_view_renders_every_camera_at_each_init_state(tmp_path):
    from pyrua_sim.view import contact_sheet, render_views

    paths = render_views('libero_goal/2', 0, [0, 1], tmp_path)
    assert [p.name for p in paths] == [
        'libero_goal_2_i00_agentview.png', 'libero_goal_2_i00_robot0_eye_in_hand.png',
        'libero_goal_2_i01_agentview.png', 'libero_goal_2_i01_robot0_eye_in_hand.png']
    assert all(p.stat().st_size > 10_000 for p in paths)
    (sheet,) = contact_sheet('libero_goal/2', 0, [0, 1], tmp_path)
    assert sheet.name == 'libero_goal_2_s0_sheet.png'

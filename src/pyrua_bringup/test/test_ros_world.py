"""
The world 'ros' opened by name: the bundled program runs over a ROS graph, without ROS.

The sim node and the primitives node as ``sim.launch.py`` configures them (namespace
``pyrua``, parameters from ``config/sim.yaml``) spin on the rclpy double's executor;
``run_episode_spec(EpisodeSpec(world='ros'))`` opens the registered world on a node of its
own and runs the twin's reference program through the primitives node's actions. Only
rclpy, tf2_ros and cv_bridge are doubles (``rclpy_double``).
"""

from pathlib import Path
import threading

import pytest
import yaml

BRINGUP = Path(__file__).resolve().parents[1]


@pytest.fixture
def graph(ros, monkeypatch):
    """Spin the sim and primitives nodes with sim.yaml's parameters; yield the sim node."""
    from pyrua_primitives.ros.parameters import flatten

    config = yaml.safe_load((BRINGUP / 'config' / 'sim.yaml').read_text())
    for node in ('sim_node', 'primitives_node'):
        ros.OVERRIDES[node] = flatten(config[node]['ros__parameters'])
    monkeypatch.setattr(ros, 'NAMESPACE', '/pyrua')

    from pyrua_primitives.ros.primitives_node import PrimitivesNode
    from pyrua_sim.ros.sim_node import SimNode

    sim, primitives = SimNode(), PrimitivesNode()
    executor = ros.MultiThreadedExecutor(num_threads=4)
    for node in (sim, primitives):
        executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    try:
        yield sim
    finally:
        executor.shutdown()
        spinner.join(5.0)
        primitives.destroy()
        sim.destroy()
    assert not executor.errors and not ros.ERRORS, (executor.errors, ros.ERRORS)


@pytest.mark.slow
def test_the_registered_ros_world_runs_the_bundled_program_over_the_graph(graph):
    from pyrua_agent.episode import EpisodeSpec, run_episode_spec

    # A graph gives no evaluator: the instruction comes with the spec, as on a station.
    spec = EpisodeSpec(task='pick_place', world='ros', planner='script', record=False,
                       instruction=graph._host.twin.instruction)
    outputs = []
    result = run_episode_spec(spec, on_cell=lambda cell, out: outputs.append(out.output))
    status = graph._host.status()
    assert result.end_reason != 'infra_error', result.end_detail
    # No evaluator on a graph opened by name: the episode cannot call itself solved ...
    assert (result.end_reason, result.success, result.score) == ('gave_up', False, None)
    # ... but the program ran through the primitives node's actions and the twin behind the
    # sim node holds the block in the bowl.
    assert result.cells > 0 and status.success, '\n'.join(outputs)


GRASP_CELLS = """# %% [include] {helpers}

# %%
import re
block_name = re.search(r'the (\\w+ block) in', instruction).group(1)
arm = choose_arm(robo.locate(block_name), robo.locate(block_name))
grasp(block_name, arm)
print('held now:', robo.pose(arm).held)
print('after opening:', robo.open_gripper(arm).held, robo.pose(arm).held)
"""


@pytest.mark.slow
def test_pose_held_over_ros_says_what_it_says_in_process(graph, tmp_path):
    """The gripper runs in the primitives node; the agent's pose(arm).held still knows."""
    from importlib.resources import files

    from pyrua_agent.episode import EpisodeSpec, run_episode_spec

    helpers = files('pyrua_agent') / 'programs' / '_look_and_grasp.py'
    script = tmp_path / 'grasp.py'
    script.write_text(GRASP_CELLS.format(helpers=helpers))
    said = {}
    for world in ('twin', 'ros'):
        outputs = []
        spec = EpisodeSpec(task='pick_place', world=world, planner='script', source=str(script),
                           record=False, instruction=graph._host.twin.instruction)
        run_episode_spec(spec, on_cell=lambda cell, out: outputs.append(out.output))
        said[world] = [line for line in outputs[-1].splitlines() if line.startswith(
            ('held now', 'after opening'))]
    assert said['twin'] == ['held now: True', 'after opening: False False'], said
    assert said['ros'] == said['twin']

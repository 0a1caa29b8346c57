"""
The world 'ros' opened by name: the bundled program runs over a ROS graph, without ROS.

The sim node and the primitives node as ``sim.launch.py`` configures them (namespace
``pyrua``, parameters from ``config/sim.yaml``) spin on the rclpy double's executor;
``run_episode_spec(EpisodeSpec(world='ros'))`` opens the registered world on a node of its
own and runs the twin's reference program through the primitives node's actions. Only
rclpy, tf2_ros and cv_bridge are doubles (``rclpy_double``).
"""

import importlib.util
from pathlib import Path
import sys
import threading

import pytest
import yaml

BRINGUP = Path(__file__).resolve().parents[1]
_SPEC = importlib.util.spec_from_file_location('rclpy_double',
                                               Path(__file__).with_name('rclpy_double.py'))
rclpy_double = sys.modules.get('rclpy_double') or importlib.util.module_from_spec(_SPEC)
if 'rclpy_double' not in sys.modules:
    sys.modules['rclpy_double'] = rclpy_double
    _SPEC.loader.exec_module(rclpy_double)


@pytest.fixture
def ros(monkeypatch, typestore):
    # the double whose module name resolves (another test file may have loaded its own)
    double = sys.modules['rclpy_double']
    double.install(monkeypatch, typestore)
    yield double
    for name in [n for n in sys.modules if '.ros.' in n and n.startswith('pyrua_')]:
        del sys.modules[name]


@pytest.mark.slow
def test_the_registered_ros_world_runs_the_bundled_program_over_the_graph(ros, monkeypatch):
    from pyrua_agent.episode import EpisodeSpec, run_episode_spec
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
        # A graph gives no evaluator: the instruction comes with the spec, as on a station.
        spec = EpisodeSpec(task='pick_place', world='ros', planner='script', record=False,
                           instruction=sim._host.twin.instruction)
        outputs = []
        result = run_episode_spec(spec, on_cell=lambda cell, out: outputs.append(out.output))
        status = sim._host.status()
    finally:
        executor.shutdown()
        spinner.join(5.0)
        primitives.destroy()
        sim.destroy()
    assert not executor.errors and not ros.ERRORS, (executor.errors, ros.ERRORS)
    assert result.end_reason != 'infra_error', result.end_detail
    # No evaluator on a graph opened by name: the episode cannot call itself solved ...
    assert (result.end_reason, result.success, result.score) == ('gave_up', False, None)
    # ... but the program ran through the primitives node's actions and the twin behind the
    # sim node holds the block in the bowl.
    assert result.cells > 0 and status.success, '\n'.join(outputs)

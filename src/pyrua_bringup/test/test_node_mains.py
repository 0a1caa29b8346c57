"""Each node's ``main``: refuses a broken rclpy before ``rclpy.init``; no dead handlers."""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2]
ROOT = SRC.parent
NODE_MODULES = {node: SRC / package / package / 'ros' / f'{node}.py'
                for node, package in (('agent_node', 'pyrua_agent'),
                                      ('primitives_node', 'pyrua_primitives'),
                                      ('sim_node', 'pyrua_sim'))}


def _main(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    (main,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == 'main']
    return tree, main


def _called(node):
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, 'id', '')


@pytest.mark.parametrize('node', sorted(NODE_MODULES))
def test_main_checks_the_rclpy_release_before_init(node):
    _, main = _main(NODE_MODULES[node])
    calls = [_called(c) for c in ast.walk(main) if isinstance(c, ast.Call)]
    assert 'require_supported_rclpy' in calls and 'init' in calls, f'{node}.main: {calls}'
    assert calls.index('require_supported_rclpy') < calls.index('init')


@pytest.mark.parametrize('node', sorted(NODE_MODULES))
def test_no_external_shutdown_handler_a_multithreaded_executor_never_reaches(node):
    # MultiThreadedExecutor._spin_once_impl swallows ExternalShutdownException (rclpy Jazzy),
    # and agent_node spins in another thread: such a handler would never run.
    tree, main = _main(NODE_MODULES[node])
    names = {n.id for n in ast.walk(main) if isinstance(n, ast.Name)}
    assert 'MultiThreadedExecutor' in names
    handled = {ast.unparse(h.type) for h in ast.walk(tree)
               if isinstance(h, ast.ExceptHandler) and h.type is not None}
    assert 'ExternalShutdownException' not in handled, f'{node} has a dead handler'


def test_the_docker_image_refuses_an_affected_rclpy():
    dockerfile = (ROOT / 'docker' / 'Dockerfile').read_text()
    assert '--only-upgrade ros-jazzy-rclpy' in dockerfile
    assert 'require_supported_rclpy' in dockerfile


def test_one_node_offers_the_tf2_frames_service():
    # tf2_ros.Buffer(node=...) serves a relative `tf2_frames`: two stations in the `pyrua`
    # namespace would offer /pyrua/tf2_frames twice.
    offering = []
    for node, path in NODE_MODULES.items():
        tree = ast.parse(path.read_text())
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and _called(call) == 'RosStation':
                flags = {k.arg: ast.literal_eval(k.value) for k in call.keywords
                         if k.arg == 'tf_frames_service'}
                if flags.get('tf_frames_service'):
                    offering.append(node)
    assert offering == ['primitives_node']

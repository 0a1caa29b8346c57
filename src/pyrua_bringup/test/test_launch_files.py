"""
Each launch file, read as launch would read it: arguments, substitutions, files it names.

``launch`` and ``launch_ros`` are not installable here (not on PyPI; the PyPI package named
``launch`` is an unrelated project), so the files are checked from their syntax tree: every
``LaunchConfiguration`` a file reads is declared by a ``DeclareLaunchArgument`` of the same
file (names given as constants, as keys of a module-level table iterated in a comprehension
or loop, or passed to a helper function), every declaration has a description, and every
file a ``PathJoinSubstitution`` names under ``config/`` or ``launch/`` exists. The Docker
image runs the real launch (``colcon test``) where ROS 2 exists.
"""

import ast
from pathlib import Path

import pytest

BRINGUP = Path(__file__).resolve().parents[1]
LAUNCH_FILES = sorted((BRINGUP / 'launch').glob('*.launch.py'))


def _call_name(call):
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, 'id', '')


class LaunchFile:
    """The launch arguments a launch file declares and reads, resolved from its syntax tree."""

    def __init__(self, path):
        self.tree = ast.parse(path.read_text(), filename=str(path))
        self.tables = {}
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
                for target in node.targets:
                    self.tables[target.id] = {k.value for k in node.value.keys
                                              if isinstance(k, ast.Constant)}
        self.bound = {}  # variable or parameter name -> the strings it takes
        self._bind_parameters()
        self._bind_loops()

    def _bind_parameters(self):
        functions = {f.name: f for f in self.tree.body if isinstance(f, ast.FunctionDef)}
        for call in ast.walk(self.tree):
            if not isinstance(call, ast.Call) or _call_name(call) not in functions:
                continue
            params = [a.arg for a in functions[_call_name(call)].args.args]
            for param, arg in zip(params, call.args):
                values = self._strings(arg)
                if isinstance(arg, ast.Name) and arg.id in self.tables:
                    values = self.tables[arg.id]
                self.bound.setdefault(param, set()).update(values)

    def _bind_loops(self):
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.comprehension, ast.For)):
                source = node.iter
                if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute):
                    source = source.func.value  # D.items() / D.keys()
                if not isinstance(source, ast.Name):
                    continue
                keys = self.tables.get(source.id) or self.bound.get(source.id, set())
                target = node.target.elts[0] if isinstance(node.target, ast.Tuple) else \
                    node.target
                if isinstance(target, ast.Name):
                    self.bound.setdefault(target.id, set()).update(keys)

    def _strings(self, expr):
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return {expr.value}
        if isinstance(expr, ast.Name):
            return set(self.bound.get(expr.id, set()))
        return set()

    def calls(self, name):
        return [c for c in ast.walk(self.tree)
                if isinstance(c, ast.Call) and _call_name(c) == name]

    def names(self, name):
        found = set()
        for call in self.calls(name):
            resolved = self._strings(call.args[0]) if call.args else set()
            assert resolved, f'{name}({ast.unparse(call.args[0])}) resolves to no name'
            found |= resolved
        return found


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=[p.name for p in LAUNCH_FILES])
def test_every_argument_read_is_declared_with_a_description(path):
    launch = LaunchFile(path)
    read, declared = launch.names('LaunchConfiguration'), launch.names('DeclareLaunchArgument')
    assert read, f'{path.name} reads no launch argument'
    assert read <= declared, f'{path.name} reads undeclared {sorted(read - declared)}'
    for call in launch.calls('DeclareLaunchArgument'):
        keywords = {k.arg for k in call.keywords}
        assert 'description' in keywords, f'{path.name}: {ast.unparse(call)[:60]} undescribed'


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=[p.name for p in LAUNCH_FILES])
def test_generate_launch_description_is_typed_and_named_files_exist(path):
    launch = LaunchFile(path)
    (function,) = [f for f in launch.tree.body if isinstance(f, ast.FunctionDef)
                   and f.name == 'generate_launch_description']
    assert ast.unparse(function.returns) == 'LaunchDescription'
    for call in launch.calls('PathJoinSubstitution'):
        parts = [e.value for e in call.args[0].elts if isinstance(e, ast.Constant)]
        if len(parts) == 2 and parts[0] in ('config', 'launch'):
            assert (BRINGUP / parts[0] / parts[1]).is_file(), f'{path.name} names {parts}'


def test_the_resolver_sees_table_and_helper_arguments():
    launch = LaunchFile(BRINGUP / 'launch' / 'pyrua.launch.py')
    read = launch.names('LaunchConfiguration')
    assert {'sim', 'use_sim_time', 'task', 'model', 'config', 'log_level'} <= read

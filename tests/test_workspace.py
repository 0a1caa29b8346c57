"""Workspace-wide layout lints: style checkers, the ROS boundary and the public surface."""

import ast
import importlib
from pathlib import Path
import re
import subprocess
import sys

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / 'src'
PYTHON_PACKAGES = ('pyrua_primitives', 'pyrua_sim', 'pyrua_local', 'pyrua_agent', 'pyrua_lab')
ROS_ONLY_IMPORTS = ('rclpy', 'launch', 'launch_ros', 'tf2_ros', 'cv_bridge', 'pyrua_msgs',
                    'control_msgs', 'sensor_msgs', 'geometry_msgs', 'std_msgs', 'gazebo_msgs',
                    'builtin_interfaces', 'trajectory_msgs', 'rosgraph_msgs', 'moveit')
PEP257_IGNORE = 'D100,D101,D102,D103,D104,D105,D106,D107,D203,D212,D404'


def _python_files():
    return sorted(p for p in SRC.rglob('*.py') if 'build' not in p.parts)


def _run(cmd):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)


def test_flake8_with_ament_configuration_passes():
    result = _run([sys.executable, '-m', 'flake8', 'src', 'tests', 'benchmarks'])
    assert result.returncode == 0, (
        f'flake8 (ament_flake8 settings in .flake8) found problems; fix them:\n{result.stdout}'
    )


def test_pydocstyle_with_ament_pep257_ignores_passes():
    result = _run([sys.executable, '-m', 'pydocstyle', '--convention=pep257',
                   f'--add-ignore={PEP257_IGNORE}', 'src'])
    assert result.returncode == 0, (
        f'pydocstyle (ament_pep257 ignore list) found problems; fix them:\n{result.stdout}'
    )


def _imported_modules(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
        elif isinstance(node, ast.ImportFrom) and node.module:
            # relative import: `from .ros import x` or `from ..ros.node import y`
            yield '.' * node.level + node.module


@pytest.mark.parametrize('package', PYTHON_PACKAGES)
def test_core_modules_import_nothing_from_ros(package):
    offenders = []
    for path in sorted((SRC / package / package).rglob('*.py')):
        if 'ros' in path.relative_to(SRC / package / package).parts:
            continue
        for module in _imported_modules(path):
            top = module.lstrip('.').split('.')[0]
            is_ros_lib = not module.startswith('.') and top in ROS_ONLY_IMPORTS
            is_ros_room = '.ros' in f'.{module}' and (module.startswith('.')
                                                      or module.split('.')[1:2] == ['ros'])
            if is_ros_lib or is_ros_room:
                offenders.append(f'{path.relative_to(ROOT)} imports {module}')
    assert not offenders, (
        'core modules must stay ROS-free (DESIGN.md rule 1); move this code under ros/:\n'
        + '\n'.join(offenders)
    )


@pytest.mark.parametrize('package', PYTHON_PACKAGES)
def test_public_surface_is_a_sorted_all_of_real_names(package):
    module = importlib.import_module(package)
    exported = list(module.__all__)
    assert exported == sorted(exported), f'{package}.__all__ must be sorted: {exported}'
    missing = [name for name in exported if not hasattr(module, name)]
    assert not missing, f'{package}.__all__ names what the package lacks: {missing}'


def test_the_agent_imports_the_lab_only_inside_functions():
    """pyrua_lab depends on pyrua_agent; the agent reaches the lab only from a function."""
    offenders = []
    folder = SRC / 'pyrua_agent' / 'pyrua_agent'
    for path in sorted(folder.rglob('*.py')):
        tree = ast.parse(path.read_text(), filename=str(path))
        functions = [n for n in ast.walk(tree)
                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        inside = {id(n) for f in functions for n in ast.walk(f)}
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ''] if isinstance(node, ast.ImportFrom) else [])
            if id(node) not in inside and any(n.split('.')[0] == 'pyrua_lab' for n in names):
                offenders.append(f'{path.relative_to(ROOT)}:{node.lineno}')
    assert not offenders, ('the agent imports pyrua_lab at module level (it must work '
                           'without the lab; import it inside the function that needs it):\n'
                           + '\n'.join(offenders))


def _workspace_rows():
    text = (ROOT / 'README.md').read_text(encoding='utf-8')
    start = text.index('## Workspace\n')
    section = text[start:text.index('\n## ', start + 1)]
    for line in section.splitlines():
        if line.startswith('| `src/'):
            yield [cell.strip() for cell in line.strip().strip('|').split('|')]


def test_readme_workspace_table_has_a_row_per_package_naming_rooms_that_exist():
    rows = list(_workspace_rows())
    packages = [re.fullmatch(r'`src/(\w+)`', row[0]).group(1) for row in rows]
    assert sorted(packages) == sorted(p.parent.name for p in SRC.glob('*/package.xml')), (
        'README ## Workspace: one table row per package under src/')
    missing = []
    for package, (_, _, rooms) in zip(packages, rows):
        inner = SRC / package / package
        base, parent = (inner if inner.is_dir() else SRC / package), None
        stack = []
        for token in re.findall(r'\(|\)|`[^`]+`', rooms):
            if token == '(':
                stack.append(parent)
            elif token == ')':
                stack.pop()
            else:
                path = (stack[-1] if stack else base) / token.strip('`')
                parent = path
                if not path.exists():
                    missing.append(str(path.relative_to(ROOT)))
    assert not missing, f'README ## Workspace names rooms that do not exist: {missing}'


def test_every_python_file_compiles():
    for path in _python_files():
        compile(path.read_text(), str(path), 'exec')

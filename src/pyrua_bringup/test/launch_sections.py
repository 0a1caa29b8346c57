"""The node sections of a config YAML, read as ``pyrua.launch.py``'s own ``_sections`` reads it."""

import ast
from pathlib import Path

import yaml

BRINGUP = Path(__file__).resolve().parents[1]


def launch_sections(config: Path) -> dict:
    """Run the launch file's ``_sections`` (and its ``NODES``) on ``config``; no ROS needed."""
    launch = BRINGUP / 'launch' / 'pyrua.launch.py'
    tree = ast.parse(launch.read_text())
    keep = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == '_sections'
            or isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', '') == 'NODES']
    namespace = {'yaml': yaml}
    exec(compile(ast.Module(body=keep, type_ignores=[]), str(launch), 'exec'), namespace)
    return namespace['_sections'](str(config))

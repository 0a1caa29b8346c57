"""Every module of every package imports on its own, in a fresh interpreter (no import cycle).

A module that only imports after some other module was imported first (a partially
initialised module, a cycle) fails here. Each module is imported in a child forked from a
parent that holds only the third-party libraries (numpy, OpenCV, MuJoCo, openai, ...): a
cycle can only run through our own modules, and the children stay fast.
"""

from pathlib import Path
import subprocess
import sys

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ('pyrua_primitives', 'pyrua_sim', 'pyrua_local', 'pyrua_agent', 'pyrua_lab')
# ros/ needs rclpy; programs/ are cells run against robo; __main__ runs a command.
SKIP_PARTS = {'ros', 'test', 'programs'}
PRELOADED = ('numpy', 'cv2', 'mujoco', 'openai', 'yaml', 'msgpack', 'rosbags.typesys',
             'jinja2', 'httpx', 'tqdm')
CHILD = r"""
import importlib, os, sys, traceback
for name in {preloaded!r}:
    try:
        importlib.import_module(name)
    except ImportError:
        pass
failures = []
for module in sys.stdin.read().split():
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(module)
        except BaseException:
            sys.stderr.write(f'--- {{module}}\n{{traceback.format_exc(limit=3)}}')
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status:
        failures.append(module)
print(' '.join(failures))
"""


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        folder = ROOT / 'src' / package / package
        for path in sorted(folder.rglob('*.py')):
            parts = path.relative_to(folder.parent).with_suffix('').parts
            if SKIP_PARTS & set(parts) or parts[-1] == '__main__':
                continue
            names.append('.'.join(parts[:-1] if parts[-1] == '__init__' else parts))
    return names


@pytest.mark.slow
def test_every_module_imports_in_a_fresh_interpreter():
    modules = _modules()
    assert len(modules) > 150
    done = subprocess.run([sys.executable, '-c', CHILD.format(preloaded=PRELOADED)],
                          input=' '.join(modules), capture_output=True, text=True,
                          timeout=900, check=True)
    failed = done.stdout.split()
    assert not failed, f'{len(failed)} modules do not import on their own:\n{done.stderr}'

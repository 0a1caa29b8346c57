"""The bubblewrap command: what the worker's file system holds, and what it leaves out."""

import os
import sys

from pyrua_agent.runtime.limits import WorkerLimits
from pyrua_agent.runtime.sandbox import bwrap_command, SITE_DIR
import pyrua_sim


def _binds(command):
    return [(command[i + 1], command[i + 2]) for i, arg in enumerate(command)
            if arg in ('--ro-bind', '--bind', '--ro-bind-try', '--bind-try')]


def test_the_sandbox_is_namespaced_unprivileged_and_dies_with_its_parent():
    command = bwrap_command(['python3', '-c', 'pass'], '/tmp/pyrua-episode-x', WorkerLimits())
    for flag in ('--unshare-user', '--unshare-pid', '--unshare-net', '--unshare-ipc',
                 '--unshare-uts', '--die-with-parent', '--new-session'):
        assert flag in command
    assert command[command.index('--uid') + 1] == '65534'
    assert command[command.index('--cap-drop') + 1] == 'ALL'
    assert ['--size', str(512 * 2 ** 20), '--tmpfs', '/tmp/pyrua-episode-x'] == command[
        command.index('/tmp/pyrua-episode-x') - 3:command.index('/tmp/pyrua-episode-x') + 1]
    assert '--bind' not in command  # nothing of the host is writable


def test_the_read_only_view_leaves_out_the_evaluator_the_venv_and_the_project():
    binds = _binds(bwrap_command(['python3'], '/tmp/x', WorkerLimits()))
    sources = [os.path.realpath(source) for source, _ in binds]
    sim = os.path.realpath(os.path.dirname(pyrua_sim.__file__))
    assert not any(s == sim or s.startswith(sim + os.sep) for s in sources)
    assert os.path.realpath(os.path.join(sys.prefix, 'bin')) not in sources
    agent = [target for _, target in binds if target.startswith(f'{SITE_DIR}/pyrua_agent')]
    assert sorted(agent) == [f'{SITE_DIR}/pyrua_agent/__init__.py',
                             f'{SITE_DIR}/pyrua_agent/errors.py',
                             f'{SITE_DIR}/pyrua_agent/runtime']
    tops = {target.split('/')[3] for _, target in binds if target.startswith(SITE_DIR)}
    assert {'numpy', 'msgpack', 'pyrua_primitives', 'cv2'} <= tops
    assert 'pyrua_sim' not in tops and 'mujoco' not in tops and 'openai' not in tops

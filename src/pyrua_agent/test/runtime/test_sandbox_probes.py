"""
The hostile corpus of issue 11: probes against the host, the evaluator and their secrets.

Each probe ran against ``pyrua run`` and ``CellRuntime`` before the sandbox and affected the
host; each test here shows how it fails now. ``make_runtime`` runs every test twice: in the
default sandbox (bubblewrap here, where it works) and with process isolation only.
"""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
from pyrua_agent.episode import run_episode
from pyrua_agent.planners.percent import parse_percent
from pyrua_agent.planners.script import ScriptPlanner
from pyrua_agent.runtime import CellRuntime
from pyrua_agent.runtime.cgroup import cgroup_problem
from pyrua_agent.runtime.limits import WorkerLimits
from pyrua_agent.runtime.sandbox import bwrap_problem
import pytest

# Writes a module into every writable directory of the host's sys.path (and the cell's own),
# whose import records the importing pid and, on the host, would move the target into the
# goal; then passes an instance of its dataclass to a primitive, both through robo and as
# a message forged on the socket.
MODULE_SOURCE = """
import dataclasses, os
try:
    with open({marker!r}, 'a') as f:
        f.write(f'{{os.getpid()}} ')
except OSError:  # in the sandbox the host's files are not there
    pass
try:
    import pyrua_sim, gc
    for obj in gc.get_objects():
        if type(obj).__name__ == 'MujocoStation':
            state = obj.privileged_state()
            goal = state.body_pose({goal!r})
            state.set_body_pose({target!r}, goal)
except Exception:
    pass
@dataclasses.dataclass
class Evil:
    x: int = 1
"""
MODULE_PROBE = """
import os, sys, struct, msgpack
for folder in {host_path!r} + ['.']:
    try:
        with open(os.path.join(folder, 'pyrua_x.py'), 'w') as f:
            f.write({source!r})
    except OSError:
        pass
sys.path.insert(0, '.')
import pyrua_x
try:
    robo.move_to('left', pyrua_x.Evil())
except TypeError as exc:
    print('refused:', exc)
fd = int(sys.argv[1])
forged = msgpack.packb(['call', 99, 'move_to', [1, 'left', [4, 'pyrua_x.Evil', 1]], [2], '',
                        []])
os.write(fd, struct.pack('!I', len(forged)) + forged)
"""


def _script(*cells):
    return ScriptPlanner(parse_percent(''.join(f'# %%\n{c}\n' for c in cells)))


@pytest.mark.slow
@pytest.mark.parametrize('sandbox', ['auto', 'none'])
def test_a_module_written_by_a_cell_never_runs_on_the_host_and_the_episode_fails(
        tmp_path, monkeypatch, sandbox):
    from pyrua_agent.episode import open_twin_world

    monkeypatch.setenv('OPENAI_API_KEY', 'sk-secret')
    host_dir = tmp_path / 'on_host_path'
    host_dir.mkdir()
    monkeypatch.syspath_prepend(str(host_dir))
    marker = tmp_path / 'imported_by'
    world, twin = open_twin_world('pick_place', 0, 0)
    try:
        target = twin.layout.with_role('target')[0].name
        goal = twin.layout.with_role('goal')[0].name
        state = twin.station.privileged_state()
        before = state.body_pose(target).copy()
        source = MODULE_SOURCE.format(marker=str(marker), target=target, goal=goal)
        probe = MODULE_PROBE.format(host_path=[str(host_dir)], source=source)
        result = run_episode(world, _script(probe, "print('still here')"), sandbox=sandbox)
        after = state.body_pose(target)
    finally:
        twin.close()
    assert 'pyrua_x' not in sys.modules
    importers = marker.read_text().split() if marker.exists() else []
    assert str(os.getpid()) not in importers  # the host never imported the cell's module
    assert np.allclose(before, after)  # the object did not move
    assert result.success is False and result.end_reason == 'gave_up'
    first = result.cell_results[0]
    assert 'refused: robo.move_to arguments must be plain data' in first.output
    assert 'pyrua_x.Evil cannot be passed to a primitive' in first.output
    # The forged call is refused by name too; the cell that sent it goes on.
    assert result.cell_results[1].output.endswith('still here\n')
    assert result.sandbox == ('bwrap' if sandbox == 'auto' and bwrap_problem() is None
                              else 'none')


def test_forged_lengths_and_headers_cost_the_host_no_memory(make_runtime):
    import resource

    rt = make_runtime()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    claims = [
        # A frame that claims 3 GiB: refused from its 4-byte length alone.
        "struct.pack('!I', 3 * 2 ** 30)",
        # A call that announces a 3 GiB raw buffer after it.
        "(lambda b: struct.pack('!I', len(b)) + b)(__import__('msgpack').packb("
        "['call', 7, 'echo', [1], [2], '', [3 * 2 ** 30]]))",
        # A small frame whose msgpack array header claims 4 billion items.
        "struct.pack('!I', 5) + b'\\xdd\\xff\\xff\\xff\\xff'",
        # A small frame whose bin header claims 4 GiB.
        "struct.pack('!I', 5) + b'\\xc6\\xff\\xff\\xff\\xff'",
    ]
    outputs = []
    for claim in claims:
        result = rt.run_cell(f'import os, struct, sys, time\nos.write(int(sys.argv[1]), {claim})\n'
                             'time.sleep(10)')
        assert result.stopped_reason == 'worker_died' and result.duration_s < 8
        outputs.append(result.output)
    assert 'a message of 3221225472 bytes vs the limit of' in outputs[0]
    assert 'a call of 3221225495 bytes of arguments vs the limit of 1049088 bytes' in outputs[1]
    assert all('not a valid message' in text for text in outputs[2:])
    big = rt.run_cell('robo.echo(frozenset(range(3_000_000)))')
    assert big.error == 'TypeError' and 'frozenset cannot be passed' in big.output
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 100, f'the host grew by {grown_mb:.0f} MB'


def test_host_environ_memory_and_command_line_are_out_of_reach(
        make_runtime, host_pid, monkeypatch, needs_bwrap):
    monkeypatch.setenv('OPENAI_API_KEY', 'sk-secret')
    rt = make_runtime(sandbox='bwrap')
    result = rt.run_cell(textwrap.dedent(f"""
        import os
        for name in ('environ', 'mem', 'cmdline'):
            try:
                open('/proc/{host_pid}/' + name, 'rb').read(64)
                print(name, 'READ')
            except OSError as exc:
                print(name, type(exc).__name__)
        print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))
        print('sk-secret' in open('/proc/1/environ').read())
    """))
    assert result.output.splitlines()[:3] == ['environ FileNotFoundError',
                                              'mem FileNotFoundError',
                                              'cmdline FileNotFoundError']
    assert result.output.splitlines()[3] == '[1, 2]'  # bwrap's init and the worker
    assert result.output.splitlines()[4] == 'False'


def test_the_evaluator_the_host_files_and_the_network_are_out_of_reach(make_runtime,
                                                                       needs_bwrap):
    import socket

    import pyrua_sim

    rt = make_runtime(sandbox='bwrap')
    sim_dir = os.path.dirname(pyrua_sim.__file__)
    server = socket.create_server(('127.0.0.1', 0))
    port = server.getsockname()[1]
    result = rt.run_cell(textwrap.dedent(f"""
        import os
        try:
            import pyrua_sim
            print('imported')
        except ImportError as exc:
            print(type(exc).__name__)
        print(os.path.exists({sim_dir!r}), os.path.exists({sys.prefix!r}),
              os.path.exists({os.getcwd()!r}), os.getuid())
        import socket
        try:
            socket.create_connection(('127.0.0.1', {port}), timeout=1)
            print('network reached the host')
        except OSError as exc:
            print('network', type(exc).__name__)
    """))
    server.close()
    lines = result.output.splitlines()
    assert lines[0] == 'ModuleNotFoundError'
    assert lines[1] == 'False False False 65534'
    assert lines[2].startswith('network') and 'host' not in lines[2]


def _running(token: str) -> list[int]:
    """Return the pids of live processes whose command line holds ``token``."""
    found = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/cmdline', 'rb') as f:
                cmdline = f.read()
            with open(f'/proc/{entry}/stat', 'rb') as f:
                stat = f.read()
        except OSError:
            continue
        state = stat[stat.rfind(b')') + 2:].split()[0]
        if token.encode() in cmdline and state not in (b'Z', b'X'):
            found.append(int(entry))
    return found


SPAWN = textwrap.dedent("""
    import os, subprocess, time
    subprocess.Popen(['sleep', '{token}'])
    subprocess.Popen(['sleep', '{token}'], start_new_session=True)
    for _ in range(20):
        if os.fork() == 0:
            os.execvp('sleep', ['sleep', '{token}'])
    if os.fork() == 0:  # a daemon: double fork, new session, parent gone
        os.setsid()
        if os.fork() == 0:
            os.execvp('sleep', ['sleep', '{token}'])
        os._exit(0)
""")


def _token() -> str:
    return f'{4000 + int.from_bytes(os.urandom(2), "big") / 1e5:.5f}'


@pytest.mark.parametrize('ending', ['close', 'exit', 'timeout', 'protocol'])
def test_processes_a_cell_starts_die_with_the_worker_on_every_path(make_runtime, ending):
    rt = make_runtime(cell_timeout_s=1.0)
    token = _token()
    result = rt.run_cell(SPAWN.format(token=token))
    assert result.ok, result.output
    # Polled: on a busy machine the 22 sleeps may take a while to exec.
    deadline = time.monotonic() + 30
    while len(_running(token)) < 22 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_running(token)) >= 22
    if ending == 'close':
        rt.close()
    elif ending == 'exit':
        rt.run_cell('import os\nos._exit(3)')
    elif ending == 'timeout':
        rt.run_cell('import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n'
                    'while True:\n    pass')
    else:
        rt.run_cell("import os, sys\nos.write(int(sys.argv[1]), b'\\0\\0\\0\\x01\\xc1')\n"
                    'import time\ntime.sleep(5)')
    left = _running(token)
    if ending == 'exit' and rt.sandbox == 'none' and cgroup_problem() is not None:
        # Documented: without the sandbox or a worker cgroup, a child in its own session
        # outlives a worker that exits by itself (no subreaper left to hold it, no session
        # to find it by; a cgroup holds it).
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert len(left) == 1
    else:
        assert left == []


def test_killing_the_host_kills_the_worker_and_what_its_cells_started(tmp_path, gone):
    token = _token()
    host = tmp_path / 'host.py'
    host.write_text(textwrap.dedent(f"""
        from pyrua_agent.runtime import CellRuntime
        rt = CellRuntime({{}})
        print(rt.worker_pid, rt.sandbox, flush=True)
        # Before it spins, the cell tries to keep the sandbox alive past the host: trace
        # the sandbox's init (to clear its parent-death signal) or write its memory.
        # (Only inside the sandbox: pid 1 is the host's init without it.)
        rt.run_cell("import ctypes, os, subprocess\\n"
                    "if os.path.isdir('/pyrua/site'):\\n"
                    "    ctypes.CDLL(None).ptrace(0x4206, 1, 0, 0)\\n"
                    "    try:\\n        open('/proc/1/mem', 'r+b')\\n"
                    "    except OSError:\\n        pass\\n"
                    "subprocess.Popen(['sleep', '{token}'])\\n"
                    "print('started', flush=True)\\nwhile True:\\n    pass")
    """))
    proc = subprocess.Popen([sys.executable, str(host)], stdout=subprocess.PIPE, text=True)
    try:
        worker_pid, mode = proc.stdout.readline().split()
        deadline = time.monotonic() + 20
        while len(_running(token)) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _running(token), 'the cell did not start its child'
        time.sleep(0.2)  # the cell now holds the GIL in its loop
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 3
        while not gone(int(worker_pid)) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert gone(int(worker_pid))
        if mode == 'bwrap':
            assert _running(token) == []
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        for pid in _running(token):  # none mode: a subprocess exec'd by C code stays (README)
            os.kill(pid, signal.SIGKILL)


def test_a_forged_done_ends_the_worker_instead_of_desynchronising_the_channel(make_runtime):
    rt = make_runtime()
    forge = ('import msgpack, os, struct, sys\n'
             'def forge(run_id):\n'
             "    blob = msgpack.packb(['done', run_id, 'forged\\n', None, '', '', False, ''])\n"
             "    os.write(int(sys.argv[1]), struct.pack('!I', len(blob)) + blob)\n")
    rt.run_cell(forge)
    guessed = rt.run_cell('forge(12345)\nimport time\ntime.sleep(5)')
    assert guessed.stopped_reason == 'worker_died' and guessed.duration_s < 4
    assert "'done' message that answers no request of this cell" in guessed.output
    rt.run_cell(forge)
    # The right run id, read from the worker's own frame: the cell ends itself early...
    # (It prints nothing more: the real 'done' is then the only message left to arrive.)
    early = rt.run_cell("import sys\nforge(sys._getframe(1).f_locals['run_id'])")
    assert 'forged' in early.output
    # Waited for, not slept on: the real 'done' must be there before the next cell starts.
    assert rt._worker.wait_readable(30)
    # ...and the real 'done' that follows ends the worker before the next cell, which says so
    # and runs itself rather than reporting the earlier cell.
    after = rt.run_cell("print('next cell ran')")
    assert 'next cell ran' in after.output and after.namespace_lost
    assert "sent a 'done' message between cells" in after.output
    assert rt.run_cell("print('fine')").output == 'fine\n'


def test_lone_surrogates_and_terminal_escapes_are_made_safe(make_runtime):
    rt = make_runtime()
    result = rt.run_cell("print('\\ud800 ok \\ud83d\\ude00')\n"
                         "print('\\x1b[2J\\x1b[31mred\\x07 \\u202eevil')\n"
                         "raise ValueError('\\x1b]0;title\\x07')")
    assert result.output.startswith('\ufffd ok \U0001f600\n')
    assert '\\x1b[2J\\x1b[31mred\\x07 \\u202eevil\n' in result.output
    assert 'ValueError: \\x1b]0;title\\x07' in result.output
    assert not any(ord(c) < 32 and c not in '\n\t' for c in result.output)
    result.output.encode('utf-8')  # printable and JSON-safe as it is


@pytest.mark.parametrize('value', ['deep', 'loop'])
def test_deep_or_recursive_arguments_are_refused_in_the_cell(make_runtime, value):
    rt = make_runtime()
    make = ('x = []\nfor _ in range(1500):\n    x = [x]\n' if value == 'deep'
            else 'x = []\nx.append(x)\n')
    result = rt.run_cell(make + 'robo.echo(x)')
    assert result.error == 'TypeError'
    assert 'nested deeper than 32 levels (or one that contains itself)' in result.output


def test_a_deep_structure_forged_on_the_socket_is_refused_by_the_host(make_runtime):
    rt = make_runtime()
    result = rt.run_cell(
        'import msgpack, os, struct, sys, time\nargs = [0]\n'
        'for _ in range(200):\n    args = [0, args]\n'
        "blob = msgpack.packb(['call', 999, 'echo', [1, args], [2], '', []])\n"
        "os.write(int(sys.argv[1]), struct.pack('!I', len(blob)) + blob)\ntime.sleep(0.5)\n"
        'print(robo.echo(1))')
    # The host answered the forged call with a refusal and served the real one after it.
    assert result.ok and result.output == '1\n'


def test_huge_arguments_are_refused_fast_and_large_ones_recorded_as_summaries(make_runtime):
    rt = make_runtime()
    started = time.monotonic()
    huge = rt.run_cell("robo.move_to('left', [0.0] * 10 ** 7)")
    assert time.monotonic() - started < 5
    assert huge.error == 'TypeError'
    assert 'take more than 1048576 bytes' in huge.output
    assert 'WorkerLimits.arg_bytes' in huge.output
    large = rt.run_cell('print(len(robo.echo([0.5] * 50_000)))')
    assert large.ok and large.output == '50000\n'
    (call,) = large.calls
    assert call.args == ('<list of 50000 items: over 4096 bytes, not recorded>',)


def test_images_per_cell_are_capped_with_the_limit_named(make_runtime):
    rt = make_runtime(limits=WorkerLimits(images_per_cell=3))
    result = rt.run_cell("for i in range(2000):\n    robo.show('head')")
    assert result.error == 'RuntimeError' and len(result.images) == 3
    assert 'robo.show: image 4 of this cell vs images_per_cell 3' in result.output


def test_close_racing_the_start_of_a_cell_is_prompt_and_names_the_reason(make_runtime):
    rt = make_runtime(interrupt_grace_s=0.3)
    box = {}

    def run():
        try:
            box['result'] = rt.run_cell('while True:\n    pass')
        except Exception as exc:  # RuntimeClosed when close() came first
            box['error'] = exc

    thread = threading.Thread(target=run)
    thread.start()
    started = time.monotonic()
    rt.close()
    assert time.monotonic() - started < 3
    thread.join(5)
    if 'result' in box:
        assert 'the runtime was closed' in box['result'].output
        assert 'too much memory' not in box['result'].output
    else:
        assert type(box['error']).__name__ == 'RuntimeClosed'


def test_without_bubblewrap_auto_warns_once_and_bwrap_is_refused(tmp_path, monkeypatch,
                                                                 caplog):
    from pyrua_agent.runtime.sandbox import SandboxUnavailable

    monkeypatch.setenv('PATH', str(tmp_path))  # no bwrap on it
    with pytest.raises(SandboxUnavailable, match='bwrap: bubblewrap .* apt-get install'):
        CellRuntime({}, sandbox='bwrap')
    for _ in range(2):
        with CellRuntime({}) as rt:
            assert rt.sandbox == 'none' and rt.run_cell('print(1)').output == '1\n'
    warnings = [r.getMessage() for r in caplog.records if 'NOT SANDBOXED' in r.getMessage()]
    assert len(warnings) == 1 and 'sandbox: none' in warnings[0]
    with pytest.raises(ValueError, match="sandbox 'box' vs one of auto, bwrap, none"):
        CellRuntime({}, sandbox='box')


def test_code_with_a_lone_surrogate_still_runs_and_never_raises_in_the_host(make_runtime):
    result = make_runtime().run_cell("print('a\ud800b')")
    assert result.ok and result.output == 'a\ufffdb\n'


@pytest.mark.slow
def test_pyrua_run_prints_records_and_reports_the_sandbox_despite_hostile_output(
        tmp_path, monkeypatch, capsys):
    import json

    from pyrua_agent.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / 'evil.py').write_text(
        "# %%\nprint('\\ud800 lone', '\\x1b[2J\\x1b[31mred')\n"
        "# %%\nrobo.move_to('left', [0.0] * 10 ** 7)\n")
    assert main(['run', '--task', 'pick_place', '--script', 'evil.py', '--json', 'out.json']) == 0
    printed = capsys.readouterr().out
    assert '\ufffd lone \\x1b[2J\\x1b[31mred' in printed and '\x1b' not in printed
    assert 'take more than 1048576 bytes' in printed
    record = json.loads((tmp_path / 'out.json').read_text())
    assert record['sandbox'] == ('bwrap' if bwrap_problem() is None else 'none')
    assert record['success'] is False

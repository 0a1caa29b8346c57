"""
The hostile-cell corpus: each cell gets a clear result and the runtime stays usable.

Every test ends by running a normal cell on the same runtime.
"""

import threading
import time

import pytest


def _usable(rt, keeps=None):
    """Assert the runtime runs the next cell, with ``keeps`` still defined (or not)."""
    result = rt.run_cell("print(robo.echo(5), 'kept' in dir())")
    assert result.ok, result.output
    if keeps is not None:
        assert result.output == f'5 {keeps}\n'
    return result


def test_syntax_error_is_reported_and_runs_nothing(make_runtime):
    rt = make_runtime()
    result = rt.run_cell('kept = 1\nprint(kept\n')
    assert result.error == 'SyntaxError'
    assert "'(' was never closed" in result.output
    _usable(rt, keeps=False)


def test_infinite_loop_is_stopped_by_the_cell_timeout(make_runtime):
    rt = make_runtime(cell_timeout_s=0.5)
    rt.run_cell('kept = 1')
    result = rt.run_cell('while True:\n    pass')
    assert result.stopped_reason == 'cell_timeout' and not result.namespace_lost
    assert 'cell ran 0.5 s vs cell_timeout_s 0.5 s' in result.output
    _usable(rt, keeps=True)


def test_deep_recursion_gives_a_short_recursion_error(make_runtime):
    rt = make_runtime()
    result = rt.run_cell('kept = 1\ndef down(n):\n    return down(n + 1)\ndown(0)')
    assert result.error == 'RecursionError'
    assert 'maximum recursion depth exceeded' in result.output
    assert 'Previous line repeated' in result.output
    assert len(result.output) < 2000
    _usable(rt, keeps=True)


def test_two_gigabyte_allocation_fails_inside_the_memory_limit(make_runtime):
    rt = make_runtime()
    result = rt.run_cell('kept = 1\nbig = np.ones(2 * 1024 ** 3, dtype=np.uint8)')
    assert result.error == 'MemoryError' and not result.namespace_lost
    _usable(rt, keeps=True)


def test_os_exit_loses_the_namespace_and_a_fresh_worker_is_ready(make_runtime):
    rt = make_runtime()
    pid = rt.worker_pid
    result = rt.run_cell("kept = 1\nprint('bye', flush=True)\nimport os\nos._exit(1)")
    assert result.stopped_reason == 'worker_died' and result.namespace_lost
    assert 'bye\n' in result.output
    assert 'died (exit code 1)' in result.output and 'variables' in result.output
    assert rt.worker_pid != pid
    _usable(rt, keeps=False)


def test_sys_exit_ends_only_the_cell(make_runtime):
    rt = make_runtime()
    result = rt.run_cell("kept = 1\nimport sys\nsys.exit('done here')\nprint('never')")
    assert result.error == 'SystemExit' and not result.namespace_lost
    assert 'SystemExit: done here' in result.output and 'never' not in result.output
    _usable(rt, keeps=True)


def test_ctypes_segfault_is_reported_as_a_dead_worker(make_runtime):
    rt = make_runtime()
    result = rt.run_cell('kept = 1\nimport ctypes\nctypes.string_at(0)')
    assert result.stopped_reason == 'worker_died'
    assert 'SIGSEGV' in result.output and 'crash in native code' in result.output
    _usable(rt, keeps=False)


def test_process_killed_for_memory_is_reported_as_a_dead_worker(make_runtime):
    rt = make_runtime()
    result = rt.run_cell('import os, signal\nos.kill(os.getpid(), signal.SIGKILL)')
    assert result.stopped_reason == 'worker_died'
    assert 'SIGKILL' in result.output and 'too much memory' in result.output
    _usable(rt)


def test_printing_fifty_megabytes_is_cut_to_the_limit(make_runtime):
    rt = make_runtime(max_output_chars=4000)
    result = rt.run_cell("chunk = 'x' * 1_000_000\nfor _ in range(50):\n    print(chunk)\n"
                         "print('END')")
    assert result.ok
    assert result.output.endswith('x\nEND\n')
    assert f'{50 * 1_000_001 + 4 - 4000} characters cut' in result.output
    assert len(result.output) < 4200
    _usable(rt)


@pytest.mark.parametrize('code', ['del robo', 'robo = 1'])
def test_deleting_or_rebinding_robo_restores_it_for_the_next_cell(make_runtime, code):
    rt = make_runtime()
    result = rt.run_cell(code)
    assert 'robo` was deleted or rebound in this cell; it is restored' in result.output
    _usable(rt)


def test_catching_base_exception_around_a_cancelled_primitive_still_ends_the_cell(
        make_runtime, robot):
    rt = make_runtime()
    code = ('n = 0\nwhile True:\n    try:\n'
            "        robo.move_to('left', (0, 0, 0.3), duration_s=30)\n"
            '    except BaseException:\n        n += 1\n')
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault('result', rt.run_cell(code)))
    thread.start()
    assert robot.started.wait(10)
    rt.cancel('wall clock')
    thread.join(10)
    result = box['result']
    assert result.stopped_reason == 'episode_cancelled'
    assert robot.cancel_reasons == ['episode_cancelled']
    assert 'episode cancelled: wall clock' in result.output
    # Ended by SIGINT outside the try, or killed if SIGINT landed inside it too.
    assert result.namespace_lost == ('worker process was killed' in result.output)
    assert result.duration_s < 5
    _usable(rt)


def test_cell_ignoring_sigint_is_killed_after_the_grace_period(make_runtime):
    rt = make_runtime(cell_timeout_s=0.3)
    result = rt.run_cell('import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n'
                         'while True:\n    pass')
    assert result.stopped_reason == 'cell_timeout' and result.namespace_lost
    assert 'worker process was killed' in result.output
    _usable(rt)


def test_primitive_ignoring_cancellation_is_abandoned_after_the_grace_period(
        make_runtime, robot):
    rt = make_runtime(cell_timeout_s=0.3)
    started = time.monotonic()
    result = rt.run_cell("robo.stubborn(3)\nprint('after')")
    assert result.stopped_reason == 'cell_timeout' and 'after' not in result.output
    assert time.monotonic() - started < 2.5
    assert result.calls[0].result_repr == 'abandoned: did not finish after cancel'
    _usable(rt)


def test_threads_left_running_are_reported_and_cannot_call_robo(make_runtime):
    rt = make_runtime()
    result = rt.run_cell(
        'import threading, time\nerrors = []\ndef spin():\n'
        '    try:\n        robo.noop()\n    except RuntimeError as e:\n'
        '        errors.append(str(e))\n    while True:\n        time.sleep(0.01)\n'
        "threading.Thread(target=spin, name='spinner', daemon=False).start()\n"
        # Polled, not slept on: on a busy machine the thread may start late.
        'deadline = time.monotonic() + 20\n'
        'while not errors and time.monotonic() < deadline:\n    time.sleep(0.01)\n'
        'print(errors)')
    assert result.ok
    assert 'call robo only from the cell itself' in result.output
    assert 'note: 1 thread(s) started by this cell still run (spinner)' in result.output
    _usable(rt)


def test_threads_printing_after_their_cell_do_not_break_later_cells(make_runtime):
    rt = make_runtime(max_output_chars=500)
    rt.run_cell('import threading, time\ndef chatter():\n    while True:\n'
                "        print('chatter')\n        time.sleep(0.001)\n"
                'threading.Thread(target=chatter, daemon=True).start()')
    # Later cells run (and carry the chatter) however the thread is scheduled; polled.
    deadline = time.monotonic() + 20
    while True:
        later = rt.run_cell("print('mine')")
        assert later.ok and 'mine' in later.output
        if 'chatter' in later.output or time.monotonic() > deadline:
            break
    assert 'chatter' in later.output
    _usable(rt)


def test_input_gets_end_of_file_instead_of_blocking(make_runtime):
    rt = make_runtime()
    result = rt.run_cell("answer = input('continue? ')")
    assert result.error == 'EOFError'
    _usable(rt)


def test_garbage_written_to_the_runtime_socket_replaces_the_worker(make_runtime):
    rt = make_runtime()
    result = rt.run_cell("import os, sys\nos.write(int(sys.argv[1]), b'\\0\\0\\0\\x08garbage!')\n"
                         'import time\ntime.sleep(5)')
    assert result.stopped_reason == 'worker_died' and result.namespace_lost
    assert 'it sent an unreadable message' in result.output
    assert result.duration_s < 4
    _usable(rt)


def test_corrupt_message_length_does_not_stall_the_host(make_runtime):
    rt = make_runtime()
    result = rt.run_cell("import os, sys\nos.write(int(sys.argv[1]), b'\\x7f\\0\\0\\0')\n"
                         'import time\ntime.sleep(5)')
    assert result.stopped_reason == 'worker_died'
    assert 'unreadable message' in result.output and result.duration_s < 4
    _usable(rt)


def test_valid_msgpack_of_a_wrong_message_replaces_the_worker(make_runtime):
    rt = make_runtime()
    result = rt.run_cell('import os, msgpack, struct, sys\nblob = msgpack.packb(42)\n'
                         "os.write(int(sys.argv[1]), struct.pack('!I', len(blob)) + blob)\n"
                         'import time\ntime.sleep(5)')
    assert result.stopped_reason == 'worker_died'
    assert 'unexpected message from the worker: 42' in result.output
    _usable(rt)


def test_forked_child_cannot_talk_to_the_host_and_ends_with_the_cell(make_runtime):
    rt = make_runtime()
    result = rt.run_cell('import os\nkept = 1\npid = os.fork()\nif pid == 0:\n'
                         "    print('child')\n    robo.noop()\nelse:\n"
                         "    os.waitpid(pid, 0)\n    print('parent')")
    assert result.output == 'parent\n'
    _usable(rt, keeps=True)


def test_exception_whose_message_cannot_be_formatted_is_still_reported(make_runtime):
    rt = make_runtime()
    result = rt.run_cell('class Odd(Exception):\n    def __str__(self):\n'
                         '        raise RuntimeError\nraise Odd()')
    assert result.error == 'Odd'
    assert 'Odd: <the message could not be formatted>' in result.output
    _usable(rt)


def test_worker_dying_during_a_primitive_cancels_the_primitive(make_runtime, robot):
    rt = make_runtime()
    code = ('import os, signal, threading\n'
            'threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGKILL)).start()\n'
            "robo.move_to('left', (0, 0, 0.3), duration_s=30)")
    result = rt.run_cell(code)
    assert result.stopped_reason == 'worker_died' and result.namespace_lost
    assert robot.cancel_reasons == ['worker_died']
    assert result.duration_s < 5
    _usable(rt)

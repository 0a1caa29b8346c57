"""Cell semantics of CellRuntime (DESIGN.md, "Cell semantics"), end to end through the worker."""

import gc
import os
import re
import threading
import time

import numpy as np
from pyrua_agent.errors import RuntimeClosed
from pyrua_agent.runtime import CellRuntime
import pytest


def test_variables_functions_and_imports_persist_across_cells(make_runtime):
    rt = make_runtime()
    first = rt.run_cell('import json\nx = 41\ndef inc(v):\n    return v + 1\n')
    second = rt.run_cell('print(json.dumps(inc(x)), np.pi > 3, math.tau > 6)')
    assert first.ok and first.output == ''
    assert second.output == '42 True True\n'


def test_last_expression_is_not_displayed(make_runtime):
    result = make_runtime().run_cell('1 + 1\nrobo.echo(5)')
    assert result.ok and result.output == ''


def test_uncaught_exception_shows_cell_frames_only_and_keeps_earlier_variables(make_runtime):
    rt = make_runtime()
    failed = rt.run_cell("before = 1\nrobo.move_to('left', (0.1, 0.2, -0.5))\nafter = 2\n")
    after = rt.run_cell("print('before' in dir(), 'after' in dir())")
    assert failed.error == 'ValueError'
    assert failed.stopped_reason is None
    assert 'File "<cell 1>", line 2, in <module>' in failed.output
    assert "robo.move_to('left', (0.1, 0.2, -0.5))" in failed.output
    assert failed.output.rstrip().endswith('ValueError: z=-0.500 m is below the table; raise z')
    for internal in ('pyrua_agent', 'worker.py', 'robo.py', 'forward', 'transport'):
        assert internal not in failed.output
    assert after.output == 'True False\n'


def test_traceback_shows_source_lines_of_functions_from_earlier_cells(make_runtime):
    rt = make_runtime()
    rt.run_cell('def half(v):\n    return 1 / v\n')
    result = rt.run_cell('half(0)')
    assert result.error == 'ZeroDivisionError'
    assert 'File "<cell 1>", line 2, in half' in result.output
    assert 'return 1 / v' in result.output


def test_syntax_error_names_the_cell_line(make_runtime):
    result = make_runtime().run_cell('x = 1\nif x\n    print(x)\n')
    assert result.error == 'SyntaxError'
    assert 'File "<cell 1>", line 2' in result.output
    assert 'if x' in result.output


def test_stdout_and_stderr_are_captured_in_order(make_runtime):
    code = "import sys\nprint('a')\nprint('b', file=sys.stderr)\nsys.stdout.write('c\\n')\n"
    code += "sys.stderr.write('d\\n')\nrobo.noop()\nprint('e')"
    assert make_runtime().run_cell(code).output == 'a\nb\nc\nd\ne\n'


def test_output_of_subprocesses_and_c_code_is_captured(make_runtime):
    result = make_runtime().run_cell(
        "import os, subprocess\nos.system('echo from-shell')\n"
        "subprocess.run(['sh', '-c', 'echo to-stderr >&2'])\nos.write(1, b'raw\\n')")
    assert result.ok
    assert sorted(result.output.split()) == ['from-shell', 'raw', 'to-stderr']


def test_output_past_limit_keeps_head_and_tail_and_says_how_much_was_cut(make_runtime):
    result = make_runtime(max_output_chars=1000).run_cell(
        "print('HEAD')\nfor i in range(5000):\n    print(f'line {i:05d}')\nprint('TAIL')")
    written = len('HEAD\n') + 5000 * len('line 00000\n') + len('TAIL\n')
    assert result.output.startswith('HEAD\nline 00000\n')
    assert result.output.endswith('line 04999\nTAIL\n')
    assert f'{written - 1000} characters cut' in result.output
    assert 'limited to 1000 characters' in result.output
    assert len(result.output) < 1200


def test_show_returns_images_in_call_order_with_placeholders_where_asked(make_runtime):
    result = make_runtime().run_cell(
        "print('first')\nrobo.show('head', note='the cup')\nprint('between')\n"
        "robo.show('left_wrist')\nprint('last')")
    assert result.output == ('first\n[image 1: head \u2014 the cup]\nbetween\n'
                             '[image 2: left_wrist]\nlast\n')
    first, second = result.images
    assert (first.camera, first.note, first.index) == ('head', 'the cup', 1)
    assert (second.camera, second.note, second.index) == ('left_wrist', '', 2)
    assert result.output[first.offset:].startswith('[image 1: head')
    assert result.output[second.offset:].startswith('[image 2: left_wrist]')
    assert first.pixels.shape == (480, 640, 3) and first.pixels.dtype == np.uint8
    assert first.pixels[0, 0, 0] == 4 and second.pixels[0, 0, 0] == 10
    assert not first.pixels.flags.writeable
    assert 'ndarray' not in repr(first) and len(repr(first)) < 120


def test_image_primitive_returns_pixels_to_the_cell_without_showing_them(make_runtime):
    result = make_runtime().run_cell("im = robo.image('head')\nprint(im.shape, im.dtype)")
    assert result.output == '(480, 640, 3) uint8\n'
    assert result.images == ()


def test_success_guard_stops_before_an_acting_primitive_and_names_the_skipped_call(
        make_runtime, robot):
    complete = []
    rt = make_runtime(acting=['move_to'], success_check=lambda: bool(complete))
    moved = rt.run_cell("robo.move_to('left', (0.1, 0.2, 0.3))\nprint('moved')")
    complete.append(True)
    stopped = rt.run_cell("robo.noop()\nprint('looked')\n"
                          "robo.move_to('right', (0.3, 0.2, 0.1))\nprint('never')")
    assert moved.ok and robot.moves == [('left', (0.1, 0.2, 0.3))]
    assert stopped.stopped_reason == 'task_complete' and stopped.error is None
    assert 'looked' in stopped.output and 'never' not in stopped.output
    assert 'not an error: the task is done (success)' in stopped.output
    assert "cell ended before robo.move_to('right', (0.3, 0.2, 0.1))" in stopped.output
    assert robot.moves == [('left', (0.1, 0.2, 0.3))]


def test_success_guard_stop_cannot_be_swallowed_by_except_exception(make_runtime):
    rt = make_runtime(acting=['move_to'], success_check=lambda: True)
    result = rt.run_cell("try:\n    robo.move_to('left', (0, 0, 0.3))\nexcept Exception:\n"
                         "    print('swallowed')\nprint('after')")
    assert result.stopped_reason == 'task_complete'
    assert 'swallowed' not in result.output and 'after' not in result.output


def _run_in_thread(rt, code):
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault('result', rt.run_cell(code)))
    thread.start()
    return thread, box


def test_cancel_cancels_the_active_primitive_through_its_token_and_stops_the_cell(
        make_runtime, robot):
    rt = make_runtime()
    thread, box = _run_in_thread(
        rt, "kept = 1\nr = robo.move_to('left', (0, 0, 0.3), duration_s=30)\nprint('after')")
    assert robot.started.wait(10)
    assert rt.cancel('wall clock 600 s reached')
    thread.join(10)
    result = box['result']
    assert robot.cancel_reasons == ['episode_cancelled']
    assert result.stopped_reason == 'episode_cancelled'
    assert 'after' not in result.output
    assert 'episode cancelled: wall clock 600 s reached' in result.output
    assert 'robo.move_to was cancelled' in result.output
    assert result.duration_s < 5
    assert rt.run_cell('print(kept)').output == '1\n'


def test_cancel_interrupts_a_pure_python_cell_and_keeps_the_namespace(make_runtime):
    rt = make_runtime()
    rt.run_cell('kept = 7')
    thread, box = _run_in_thread(rt, "print('spinning', flush=True)\nwhile True:\n    pass")
    # Waits until the host has the cell's first line: the loop is running then.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        cell = rt._active
        if cell is not None and 'spinning' in cell.output.render():
            break
        time.sleep(0.01)
    rt.cancel()
    thread.join(10)
    result = box['result']
    assert result.stopped_reason == 'episode_cancelled'
    assert re.search(r'\[cell stopped at line [23] \((while True:|pass)\): episode cancelled',
                     result.output)
    assert not result.namespace_lost
    assert rt.run_cell('print(kept)').output == '7\n'


def test_cancel_without_a_running_cell_does_nothing(make_runtime):
    rt = make_runtime()
    assert rt.cancel() is False
    assert rt.run_cell('print(1)').ok


def test_cell_timeout_cancels_the_active_primitive_and_stops_the_cell(make_runtime, robot):
    rt = make_runtime(cell_timeout_s=0.5)
    result = rt.run_cell("robo.move_to('left', (0, 0, 0.3), duration_s=30)\nprint('after')")
    assert result.stopped_reason == 'cell_timeout'
    assert robot.cancel_reasons == ['cell_timeout']
    assert 'vs cell_timeout_s 0.5 s' in result.output and 'after' not in result.output
    assert result.duration_s < 3


def test_primitive_errors_keep_builtin_types_and_name_other_types(make_runtime):
    rt = make_runtime()
    builtin = rt.run_cell("try:\n    robo.move_to('left', (0, 0, -1))\n"
                          "except ValueError as e:\n    print('caught', e)")
    other = rt.run_cell('robo.fail()')
    assert builtin.output == 'caught z=-1.000 m is below the table; raise z\n'
    assert other.error == 'PrimitiveFailed'
    assert 'PrimitiveFailed: LookupFailure: no camera sees the cup' in other.output


def test_wrong_arguments_raise_type_error_in_the_cell(make_runtime):
    result = make_runtime().run_cell("robo.move_to('left')")
    assert result.error == 'TypeError'
    assert "missing 1 required positional argument: 'xyz'" in result.output


def test_arguments_that_are_not_plain_data_are_refused(make_runtime):
    rt = make_runtime()
    lam = rt.run_cell('robo.echo(lambda: 1)')
    other = rt.run_cell('import fractions\nrobo.echo(fractions.Fraction(1, 3))')
    assert lam.error == 'TypeError' and 'must be plain data' in lam.output
    assert other.error == 'TypeError'
    assert 'fractions.Fraction cannot be passed to a primitive' in other.output


def test_robo_lists_primitives_and_refuses_unknown_names(make_runtime):
    rt = make_runtime()
    listed = rt.run_cell('print(dir(robo))')
    unknown = rt.run_cell('robo.move_too')
    assert listed.output == ("['echo', 'fail', 'image', 'move_to', 'noop', 'show', "
                             "'stubborn']\n")
    assert unknown.error == 'AttributeError'
    assert "unknown primitive 'move_too'; did you mean 'move_to'?" in unknown.output


def test_help_shows_the_host_primitive_signature_and_docstring(make_runtime):
    result = make_runtime().run_cell('help(robo.move_to)')
    assert 'move_to(arm: str, xyz: tuple, duration_s: float = 0.0) -> str' in result.output
    assert 'Move ``arm`` to ``xyz`` (metres, station frame)' in result.output
    assert 'cancel' not in result.output.split('\n')[2]


def test_primitive_calls_are_recorded_with_arguments_results_and_timing(make_runtime):
    result = make_runtime().run_cell(
        "robo.echo(3)\nrobo.move_to('left', (0, 0, 0.3), duration_s=0.05)\nrobo.show('head')")
    names = [(c.name, c.args, c.kwargs, c.result_repr) for c in result.calls]
    assert names == [('echo', (3,), {}, '3'),
                     ('move_to', ('left', (0, 0, 0.3)), {'duration_s': 0.05}, "'reached'"),
                     ('show', ('head',), {}, '<array 480x640x3 uint8>')]
    assert result.calls[1].duration_s >= 0.05
    assert 0 <= result.calls[0].started_s <= result.calls[1].started_s <= result.duration_s


def test_worker_environment_has_no_secrets_and_runs_in_a_scratch_dir(make_runtime,
                                                                     monkeypatch):
    for name in ('OPENAI_BASE_URL', 'ANTHROPIC_API_KEY', 'MY_TOKEN', 'DB_PASSWORD',
                 'AWS_SECRET_ACCESS_KEY'):
        monkeypatch.setenv(name, 'leak')
    monkeypatch.setenv('PYRUA_HARMLESS', 'kept')
    rt = make_runtime()
    result = rt.run_cell('import os\nprint(sorted(k for k, v in os.environ.items() '
                         "if v in ('leak', 'kept')))\nprint(os.getcwd())\n"
                         "open('note.txt', 'w').write('x')")
    # The sandbox passes nothing of the host's environment; process isolation scrubs it.
    seen = '[]' if rt.sandbox == 'bwrap' else "['PYRUA_HARMLESS']"
    assert result.output.split('\n')[:2] == [seen, rt.scratch_dir]
    # The sandbox's scratch directory is a private tmpfs at the same path.
    assert os.path.exists(os.path.join(rt.scratch_dir, 'note.txt')) == (rt.sandbox == 'none')
    assert rt.worker_pid != os.getpid()
    rt.close()
    assert not os.path.exists(rt.scratch_dir)


def test_result_repr_is_one_short_line(make_runtime):
    result = make_runtime().run_cell("print('x' * 5000)")
    assert '\n' not in repr(result) and len(repr(result)) <= 120
    assert repr(result).startswith('CellResult(cell 1, ok,')


def test_closed_runtime_refuses_cells(make_runtime):
    rt = make_runtime()
    rt.close()
    with pytest.raises(RuntimeClosed, match='after close'):
        rt.run_cell('print(1)')


def test_close_during_a_cell_stops_it_and_leaves_no_worker(make_runtime, robot, gone):
    rt = make_runtime()
    thread, box = _run_in_thread(rt, "robo.move_to('left', (0, 0, 0.3), duration_s=30)")
    assert robot.started.wait(10)
    pid = rt.worker_pid
    rt.close()
    thread.join(10)
    assert box['result'].stopped_reason == 'episode_cancelled'
    assert 'the runtime was closed' in box['result'].output
    assert rt.worker_pid is None
    assert gone(pid)


def test_reserved_and_unknown_names_are_refused_at_construction(robot):
    with pytest.raises(ValueError, match="'show' is reserved"):
        CellRuntime({'show': robot.noop})
    with pytest.raises(ValueError, match="unknown acting primitive 'move'; did you mean"):
        CellRuntime(robot.primitives(), acting=['move'])
    with pytest.raises(ValueError, match='cell_timeout_s 0 vs minimum'):
        CellRuntime(robot.primitives(), cell_timeout_s=0)


def test_a_runtime_dropped_without_close_leaves_no_worker_or_scratch_dir(robot, gone):
    rt = CellRuntime(robot.primitives())
    pid, scratch = rt.worker_pid, rt.scratch_dir
    del rt
    gc.collect()
    assert not os.path.exists(scratch)
    assert gone(pid)

"""InProcessTransport: goals in threads with cancel tokens, feedback, results and errors."""

import threading

from pyrua_agent.runtime import InProcessTransport
import pytest


def _wait_cancel(duration_s, *, cancel):
    """Wait ``duration_s`` seconds unless cancelled."""
    return 'cancelled: ' + cancel.reason if cancel.wait(duration_s) else 'finished'


def _progress(steps, *, feedback):
    for i in range(steps):
        feedback(i)
    return steps


def _add(a, b=1):
    return a + b


def _boom():
    raise ValueError('bad target')


def test_goal_runs_in_another_thread_and_returns_its_value():
    seen = {}

    def where():
        seen['thread'] = threading.current_thread()
        return 7

    goal = InProcessTransport({'where': where}).send_goal('where', (), {})
    assert goal.wait(5) and goal.result() == 7
    assert seen['thread'] is not threading.current_thread()


def test_cancel_reaches_the_primitive_through_its_token():
    goal = InProcessTransport({'wait': _wait_cancel}).send_goal('wait', (30,), {})
    goal.cancel('watchdog')
    assert goal.wait(5)
    assert goal.result() == 'cancelled: watchdog'


def test_feedback_values_reach_the_callback_in_order():
    got = []
    goal = InProcessTransport({'progress': _progress}).send_goal(
        'progress', (3,), {}, feedback=got.append)
    assert goal.wait(5) and goal.result() == 3
    assert got == [0, 1, 2]


def test_primitive_errors_are_raised_by_result():
    goal = InProcessTransport({'boom': _boom}).send_goal('boom', (), {})
    goal.wait(5)
    with pytest.raises(ValueError, match='bad target'):
        goal.result()


def test_result_before_the_goal_finishes_is_refused():
    goal = InProcessTransport({'wait': _wait_cancel}).send_goal('wait', (30,), {})
    with pytest.raises(RuntimeError, match='no result yet'):
        goal.result()
    goal.cancel()


def test_unknown_names_and_reserved_keywords_are_refused():
    transport = InProcessTransport({'add': _add, 'wait': _wait_cancel})
    assert transport.names() == ('add', 'wait')
    with pytest.raises(KeyError, match="unknown primitive 'ad'; did you mean 'add'"):
        transport.send_goal('ad', (1,), {})
    with pytest.raises(TypeError, match='reserved keyword'):
        transport.send_goal('wait', (1,), {'cancel': None})

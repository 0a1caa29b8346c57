"""ActionGoal against an ActionClient-shaped peer: acceptance, rejection, cancel, results."""

from concurrent.futures import Future
from types import SimpleNamespace

from pyrua_primitives.ros.action_goal import (
    ActionGoal,
    STATUS_ABORTED,
    STATUS_CANCELED,
    STATUS_SUCCEEDED,
)


class _Handle:
    """The client goal handle rclpy returns, driven by the test as the server would."""

    def __init__(self, accepted=True):
        self.accepted = accepted
        self.cancels = 0
        self.result_future = Future()

    def cancel_goal_async(self):
        self.cancels += 1
        return Future()

    def get_result_async(self):
        return self.result_future


class _Client:
    def __init__(self):
        self.sent = []
        self.response = Future()

    def send_goal_async(self, goal, feedback_callback=None):
        self.sent.append((goal, feedback_callback))
        return self.response


def test_accepted_goal_finishes_with_the_server_result():
    client, handle = _Client(), _Handle()
    goal = ActionGoal(client, 'goal', '/pyrua/move_to')
    assert not goal.done()
    client.response.set_result(handle)
    handle.result_future.set_result(SimpleNamespace(status=STATUS_SUCCEEDED, result='R'))
    assert goal.wait(1.0) and goal.status == STATUS_SUCCEEDED and goal.result == 'R'


def test_cancel_before_acceptance_is_sent_once_accepted():
    client, handle = _Client(), _Handle()
    goal = ActionGoal(client, 'goal', '/pyrua/move_to')
    goal.cancel('watchdog')
    assert handle.cancels == 0
    client.response.set_result(handle)
    assert handle.cancels == 1 and goal.cancel_reason == 'watchdog'
    goal.cancel('again')
    assert handle.cancels == 1
    handle.result_future.set_result(SimpleNamespace(status=STATUS_CANCELED, result='partial'))
    assert goal.wait(1.0) and goal.status == STATUS_CANCELED


def test_cancel_after_acceptance_is_sent_at_once():
    client, handle = _Client(), _Handle()
    goal = ActionGoal(client, 'goal', '/pyrua/move_to')
    client.response.set_result(handle)
    goal.cancel()
    assert handle.cancels == 1


def test_rejected_goal_and_lost_transport_end_with_an_error():
    client = _Client()
    goal = ActionGoal(client, 'goal', '/pyrua/locate')
    client.response.set_result(_Handle(accepted=False))
    assert goal.done() and goal.status == STATUS_ABORTED and goal.result is None
    assert goal.error == '/pyrua/locate rejected the goal'
    client = _Client()
    goal = ActionGoal(client, 'goal', '/pyrua/locate')
    client.response.set_exception(RuntimeError('context shut down'))
    assert 'sending the goal to /pyrua/locate failed: context shut down' == goal.error


def test_feedback_messages_are_unwrapped():
    client, seen = _Client(), []
    ActionGoal(client, 'goal', '/pyrua/move_to', feedback=seen.append)
    _goal, on_feedback = client.sent[0]
    on_feedback(SimpleNamespace(feedback='F', goal_id='id'))
    assert seen == ['F']

"""
Our nodes under an executor that keeps rclpy's semantics (``rclpy_double``), without ROS.

The double's Node holds rclpy's own entity lists and its executor iterates
``node.services``, ``node.clients``, ... on every spin, as rclpy Jazzy's
``Executor._wait_for_ready_callbacks`` does; a service answers only while it is in that
wait set. A node attribute that shadows one of rclpy's lists therefore kills the spin
thread (agent_node) or silences rclpy's parameter services (sim_node), as on real Jazzy.
"""

import threading
import time

import pytest


def _spin(executor):
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    return thread


def _answer(client, request, timeout_s=10.0):
    assert client.wait_for_service(timeout_sec=timeout_s), client.srv_name
    future = client.call_async(request)
    deadline = time.monotonic() + timeout_s
    while not future.done() and time.monotonic() < deadline:
        time.sleep(0.01)
    return future.result() if future.done() else None


@pytest.mark.parametrize('evaluator', [True, False])
def test_agent_node_keeps_its_executor_alive(ros, evaluator):
    ros.OVERRIDES['agent_node'] = {'evaluator': evaluator, 'instruction': 'pick it up'}
    from pyrua_agent.ros.agent_node import AgentNode

    node = AgentNode()
    executor = ros.MultiThreadedExecutor(num_threads=2)
    executor.add_node(node)
    thread = _spin(executor)
    try:
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and thread.is_alive():
            time.sleep(0.05)
        assert thread.is_alive(), f'the executor thread died: {executor.errors!r}'
        clients = {c.srv_name for c in node.clients}
        wanted = {'/reset_task', '/task_status'} if evaluator else set()
        assert wanted <= clients
        services = {s.srv_name for s in node.services}
        assert '/agent_node/list_parameters' in services
    finally:
        executor.shutdown()
        thread.join(5.0)
        node.destroy()


@pytest.mark.slow
def test_sim_node_answers_parameter_and_evaluator_services(ros):
    from pyrua_sim.ros.sim_node import SimNode

    node = SimNode()
    caller = ros.Node('caller')
    executor = ros.MultiThreadedExecutor(num_threads=2)
    executor.add_node(node)
    executor.add_node(caller)
    thread = _spin(executor)
    try:
        srv = ros.MESSAGES.module('rcl_interfaces', 'srv')
        listed = _answer(caller.create_client(srv.ListParameters,
                                              '/sim_node/list_parameters'),
                         srv.ListParameters.Request())
        assert listed is not None, 'ros2 param list /sim_node timed out'
        assert 'gripper_interface' in listed.names and 'station.control_rate_hz' in listed.names
        pyrua = ros.MESSAGES.module('pyrua_msgs', 'srv')
        status = _answer(caller.create_client(pyrua.TaskStatus, '/task_status'),
                         pyrua.TaskStatus.Request())
        assert status is not None and status.success is False
        assert thread.is_alive(), executor.errors
    finally:
        executor.shutdown()
        thread.join(5.0)
        node.destroy()
        caller.destroy_node()


@pytest.fixture
def sim_graph(ros):
    """Yield the sim node and a RosStation on another node, both spun by one executor."""
    from pyrua_primitives.ros.config import RosStationConfig
    from pyrua_primitives.ros.ros_station import RosStation
    from pyrua_sim.ros.sim_node import SimNode

    sim = SimNode()
    client = ros.Node('station_client')
    station = RosStation(client, RosStationConfig(), ros.ReentrantCallbackGroup())
    executor = ros.MultiThreadedExecutor(num_threads=2)
    executor.add_node(sim)
    executor.add_node(client)
    thread = _spin(executor)
    try:
        yield sim, station
    finally:
        executor.shutdown()
        thread.join(5.0)
        station.destroy()
        sim.destroy()
        client.destroy_node()


@pytest.mark.slow
def test_ros_station_reports_station_seconds_as_in_process(sim_graph):
    import numpy as np
    from pyrua_sim.twin import load_twin

    sim, station = sim_graph
    assert station.time_s() == 0.0  # the twin's clock at its start, not the wall epoch
    start = station.joint_state('left').positions_rad
    target = start + np.array([0.2, 0.0, 0.0, 0.0, 0.0, 0.0])
    times = np.array([1.5])
    over_ros = station.follow_joint_trajectory('left', target[None, :], times)
    gripper_ros = station.command_gripper('left', 0.03)

    twin = load_twin('pick_place', 0, 0)
    try:
        in_process = twin.station.follow_joint_trajectory('left', target[None, :], times)
        gripper_local = twin.station.command_gripper('left', 0.03)
    finally:
        twin.close()
    assert over_ros.completed and in_process.completed
    assert over_ros.duration_s == pytest.approx(in_process.duration_s, abs=0.02)
    assert over_ros.duration_s >= 1.5
    assert gripper_ros.duration_s == pytest.approx(gripper_local.duration_s, abs=0.02)
    assert station.time_s() == pytest.approx(sim._host.twin.station.time_s())


def _stamp(msg):
    return msg.sec + msg.nanosec * 1e-9


def test_a_joint_state_in_flight_at_the_result_does_not_shorten_the_motion(ros, make):
    """A state stamped mid-motion that arrives after the result is not the motion's end."""
    import numpy as np
    from pyrua_primitives.conversions.joint_states import joint_states_to_message
    from pyrua_primitives.ros.config import RosStationConfig
    from pyrua_primitives.ros.ros_station import RosStation
    from pyrua_primitives.station import JointState

    trajectory = ros.MESSAGES.module('control_msgs', 'action').FollowJointTrajectory
    driver = ros.Node('driver')
    clock = {'t': 0.0, 'stale': 0}
    publisher = driver.create_publisher(ros.MESSAGES.message('sensor_msgs/msg/JointState'),
                                        '/joint_states', 10)

    def publish():
        stamp = 1.2 if clock['stale'] else clock['t']
        clock['stale'] = max(0, clock['stale'] - 1)
        states = [JointState(arm, np.zeros(6), np.zeros(6), 0.04, stamp)
                  for arm in ('left', 'right')]
        publisher.publish(joint_states_to_message(states, stamp, make))

    def execute(handle):
        clock['t'], clock['stale'] = 1.5, 3  # three mid-motion states still on their way
        handle.succeed()
        result = trajectory.Result()
        result.error_code, result.error_string = 0, ''
        return result

    driver.create_timer(0.01, publish)
    ros.ActionServer(driver, trajectory, '/left_arm_controller/follow_joint_trajectory',
                     execute)
    client = ros.Node('station_client')
    station = RosStation(client, RosStationConfig(), ros.ReentrantCallbackGroup())
    executor = ros.MultiThreadedExecutor(num_threads=2)
    executor.add_node(driver)
    executor.add_node(client)
    thread = _spin(executor)
    try:
        assert station.time_s() == 0.0
        result = station.follow_joint_trajectory('left', np.zeros((1, 6)), np.array([1.5]))
        assert result.completed, result
        assert result.duration_s == pytest.approx(1.5)
    finally:
        executor.shutdown()
        thread.join(5.0)
        station.destroy()
        client.destroy_node()
        driver.destroy_node()


@pytest.mark.slow
def test_sim_node_tf_and_clock_never_go_back_across_reset_task(ros, sim_graph):
    import numpy as np

    sim, station = sim_graph
    listener = ros.Node('listener')
    tf_type = ros.MESSAGES.message('tf2_msgs/msg/TFMessage')
    static, clock = [], []
    listener.create_subscription(tf_type, '/tf_static', static.append, 1)
    listener.create_subscription(ros.MESSAGES.message('rosgraph_msgs/msg/Clock'), '/clock',
                                 lambda m: clock.append(_stamp(m.clock)), 1)
    spinner = ros.SingleThreadedExecutor()
    spinner.add_node(listener)
    thread = _spin(spinner)
    try:
        q = station.joint_state('left').positions_rad
        station.follow_joint_trajectory('left', q[None, :], np.array([0.4]))
        pyrua = ros.MESSAGES.module('pyrua_msgs', 'srv')
        reset = _answer(listener.create_client(pyrua.ResetTask, '/reset_task'),
                        pyrua.ResetTask.Request(task='pick_place', seed=0, index=2))
        assert reset is not None and reset.success, reset and reset.message
        deadline = time.monotonic() + 10.0
        # /tf_static is transient_local: the listener got the one before the reset first
        while time.monotonic() < deadline and not (static and min(
                _stamp(t.header.stamp) for t in static[-1].transforms) > 0.4):
            time.sleep(0.01)
        assert static, 'no /tf_static after reset_task'
        stamps = {_stamp(t.header.stamp) for t in static[-1].transforms}
        assert min(stamps) > 0.4  # newer than everything before the reset
        count = len(clock)
        while len(clock) < count + 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert clock == sorted(clock) and clock[-1] > 0.4
        assert station.time_s() > 0.4
    finally:
        spinner.shutdown()
        thread.join(5.0)
        listener.destroy_node()


def test_what_the_primitives_node_reads_reaches_the_agent_nodes_recording(ros, tmp_path):
    import numpy as np
    from pyrua_agent.recording import read_bag, Recorder
    from pyrua_primitives.ros.observation_topics import (
        ObservationListener,
        ObservationPublisher,
    )
    from pyrua_sim.twin import load_twin

    primitives, agent = ros.Node('primitives_node', namespace='/pyrua'), ros.Node(
        'agent_node', namespace='/pyrua')
    published = ObservationPublisher(primitives)
    listener = ObservationListener(agent, ros.ReentrantCallbackGroup())
    recorder = Recorder(tmp_path / 'run')
    listener.sink = recorder
    executor = ros.MultiThreadedExecutor()
    executor.add_node(agent)
    thread = _spin(executor)
    twin = load_twin('pick_place', 0, 0)
    try:
        frames = [twin.station.capture('head'), twin.station.capture('left_wrist')]
        state = twin.station.joint_state('right')
        for frame in frames:
            published.frame(frame)
        published.joint_state(state)
        # each frame: meta, image, camera info, TF; the joint state: meta, /joint_states, /clock
        written = 2 * 4 + 3
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and recorder.bag.message_count < written:
            time.sleep(0.01)
        assert recorder.bag.message_count == written
    finally:
        executor.shutdown()
        thread.join(5.0)
        twin.close()
        recorder.close()
    assert thread.is_alive() is False and not executor.errors
    recording = read_bag(tmp_path / 'run')
    assert [f.camera for f in recording.frames] == ['head', 'left_wrist']
    for got, sent in zip(recording.frames, frames):
        assert np.array_equal(got.rgb, sent.rgb)
        assert np.allclose(got.world_from_camera, sent.model.world_from_camera, atol=1e-9)
    (joints,) = recording.joint_states
    assert joints.arm == 'right' and np.allclose(joints.positions[:6], state.positions_rad)

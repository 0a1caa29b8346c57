"""
A test double of rclpy (Jazzy) that keeps rclpy's own node state, for machines without ROS.

What it keeps from rclpy (ros2/rclpy ``jazzy:rclpy/rclpy/node.py``, ``executors.py``):

- ``Node.__init__`` assigns the same private attributes rclpy's does, in the same way:
  ``_publishers``, ``_subscriptions``, ``_clients``, ``_services``, ``_timers``,
  ``_guards`` (lists), ``__waitables`` (name-mangled), ``_parameters``, ``_context``,
  ``_logger``, ``_clock``, ... and the ``publishers`` .. ``waitables`` properties are
  ``yield from self._<list>``, so a subclass that assigns one of these names replaces
  rclpy's list as it would on real rclpy.
- The node starts rclpy's parameter services (``~/list_parameters`` etc., by
  ``start_parameter_services``) and the type-description service through
  ``create_service``, so they live in ``node._services``.
- ``Executor.spin_once`` builds its wait set the way ``Executor._wait_for_ready_callbacks``
  does: for every node, ``node.subscriptions``, ``node.timers``, ``node.clients``,
  ``node.services``, ``node.guards`` and ``node.waitables`` are iterated on every spin. A
  service answers only a request that was taken while it was in that wait set; a
  subscription gets only messages published while it is in it.

``cv_bridge`` is stood in for by the numpy path (``conversions.images``), which
``test_image_bridge`` checks against cv_bridge where ROS is installed.
Messages are built from the Jazzy definitions of the rosbags typestore (plus ours): a class
per type with rosidl's field defaults and ``get_fields_and_field_types()``. Types the
typestore lacks (controller actions, gazebo services, rcl_interfaces) are open classes.
``install(monkeypatch)`` puts the modules into ``sys.modules``.
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
import types
from typing import Any

MODULES = ('rclpy', 'rclpy.node', 'rclpy.executors', 'rclpy.callback_groups', 'rclpy.action',
           'rclpy.qos', 'rclpy.duration', 'rclpy.time', 'tf2_ros', 'cv_bridge')
MESSAGE_PACKAGES = ('sensor_msgs', 'geometry_msgs', 'std_msgs', 'builtin_interfaces',
                    'rosgraph_msgs', 'tf2_msgs', 'control_msgs', 'gazebo_msgs', 'pyrua_msgs',
                    'trajectory_msgs', 'rcl_interfaces', 'type_description_interfaces',
                    'action_msgs', 'rosbag2_interfaces')
PARAMETER_SERVICES = ('describe_parameters', 'get_parameter_types', 'get_parameters',
                      'list_parameters', 'set_parameters', 'set_parameters_atomically')
"""rclpy ``parameter_service.py`` (Jazzy): the services ``ParameterService`` creates."""

BASE = {'float64': 'double', 'float32': 'float', 'bool': 'boolean', 'byte': 'octet'}
DEFAULTS = {'double': 0.0, 'float': 0.0, 'boolean': False, 'string': ''}


# --- messages ---------------------------------------------------------------------------

def _rclpy_type(desc: Any) -> str:
    kind, detail = desc
    if kind.name == 'BASE':
        return BASE.get(detail[0], detail[0])
    if kind.name == 'NAME':
        package, _, name = detail.split('/')
        return f'{package}/{name}'
    sub, size = detail
    if kind.name == 'ARRAY':
        return f'{_rclpy_type(sub)}[{size}]'
    return f'sequence<{_rclpy_type(sub)}>'


class Messages:
    """Generated-message doubles for every type of a rosbags typestore."""

    def __init__(self, typestore: Any) -> None:
        self.store = typestore
        self._classes: dict[str, type] = {}

    def _default(self, desc: Any) -> Any:
        kind, detail = desc
        if kind.name == 'BASE':
            return DEFAULTS.get(BASE.get(detail[0], detail[0]), 0)
        if kind.name == 'NAME':
            return self.message(detail)()
        if kind.name == 'ARRAY':
            import numpy as np
            return np.zeros(detail[1])
        return []

    def message(self, type_name: str) -> type:
        """Return the class of ``pkg/msg/Name`` (``pkg/srv/Name_Request`` ...)."""
        if type_name in self._classes:
            return self._classes[type_name]
        known = type_name in self.store.fielddefs
        fields = self.store.fielddefs[type_name][1] if known else []
        owner = self

        class Message:
            __slots__ = tuple(name for name, _ in fields) if known else ('__dict__',)

            def __init__(self, **values: Any) -> None:
                for name, desc in fields:
                    setattr(self, name, owner._default(desc))
                for name, value in values.items():
                    setattr(self, name, value)

            @classmethod
            def get_fields_and_field_types(cls) -> dict[str, str]:
                return {name: _rclpy_type(desc) for name, desc in fields}

        Message.__name__ = Message.__qualname__ = type_name.rsplit('/', 1)[1]
        self._classes[type_name] = Message
        return Message

    def module(self, package: str, kind: str) -> types.ModuleType:
        """Return ``package.kind`` (``msg``, ``srv``, ``action``) with lazy classes."""
        module = types.ModuleType(f'{package}.{kind}')
        parts = {'srv': ('Request', 'Response'), 'action': ('Goal', 'Result', 'Feedback')}

        def lookup(name: str) -> Any:
            if name.startswith('__'):
                raise AttributeError(name)
            if kind == 'msg':
                return self.message(f'{package}/msg/{name}')
            interface = types.SimpleNamespace(__name__=name)
            for part in parts[kind]:
                setattr(interface, part, self.message(f'{package}/{kind}/{name}_{part}'))
            if kind == 'action':
                interface.Impl = types.SimpleNamespace(
                    FeedbackMessage=self.message(f'{package}/action/{name}_FeedbackMessage'))
            setattr(module, name, interface)
            return interface

        module.__getattr__ = lookup  # type: ignore[method-assign]
        return module


# --- graph and entities --------------------------------------------------------------------

class Graph:
    """The middleware: every service and subscription created in the process (rmw's view)."""

    def __init__(self) -> None:
        self.entities: list[Any] = []
        # transient_local publishers' last message (tf2_ros's /tf_static), by (topic, id)
        self.latched: dict[tuple[str, int], Any] = {}
        self.lock = threading.Lock()

    def add(self, entity: Any) -> None:
        with self.lock:
            self.entities.append(entity)

    def remove(self, entity: Any) -> None:
        with self.lock:
            if entity in self.entities:
                self.entities.remove(entity)

    def services(self, name: str) -> list[Service]:
        with self.lock:
            return [s for s in self.entities if isinstance(s, Service) and s.srv_name == name]

    def subscriptions(self, topic: str) -> list[Subscription]:
        with self.lock:
            return [s for s in self.entities
                    if isinstance(s, Subscription) and s.topic_name == topic]


GRAPH = Graph()


def _resolve(node: Node, name: str) -> str:
    if name.startswith('/'):
        return name
    if name.startswith('~/'):
        return f'{node.get_fully_qualified_name()}/{name[2:]}'
    return f'{node.get_namespace().rstrip("/")}/{name}'


class Publisher:
    def __init__(self, node: Node, msg_type: type, topic: str, qos: Any) -> None:
        self.msg_type, self.topic_name, self.qos = msg_type, _resolve(node, topic), qos

    def publish(self, msg: Any) -> None:
        if getattr(self, 'transient_local', False):  # a late subscriber still gets it
            with GRAPH.lock:
                GRAPH.latched[(self.topic_name, id(self))] = msg
        for sub in GRAPH.subscriptions(self.topic_name):
            sub.offer(msg)

    def get_subscription_count(self) -> int:
        return len(GRAPH.subscriptions(self.topic_name))

    def destroy(self) -> None:
        pass


class Subscription:
    def __init__(self, node: Node, msg_type: type, topic: str, callback: Any, qos: Any,
                 callback_group: Any) -> None:
        self.msg_type, self.topic_name = msg_type, _resolve(node, topic)
        self.callback, self.qos, self.callback_group = callback, qos, callback_group
        self.queue: list[Any] = []
        self.lock = threading.Lock()

    def offer(self, msg: Any) -> None:
        with self.lock:
            self.queue.append(msg)

    def take(self) -> list[Any]:
        with self.lock:
            taken, self.queue = self.queue, []
        return taken


class Service:
    def __init__(self, node: Node, srv_type: Any, name: str, callback: Any,
                 callback_group: Any) -> None:
        self.srv_type, self.srv_name, self.callback = srv_type, _resolve(node, name), callback
        self.callback_group = callback_group
        self.requests: list[tuple[Any, Future]] = []
        self.lock = threading.Lock()

    def take(self) -> list[tuple[Any, Future]]:
        with self.lock:
            taken, self.requests = self.requests, []
        return taken


class Future:
    """rclpy.task.Future: ``done``, ``result``, ``add_done_callback``."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._result: Any = None
        self._callbacks: list[Any] = []

    def set_result(self, value: Any) -> None:
        self._result = value
        self._done.set()
        for callback in self._callbacks:
            callback(self)

    def done(self) -> bool:
        return self._done.is_set()

    def result(self) -> Any:
        return self._result

    def add_done_callback(self, callback: Any) -> None:
        self._callbacks.append(callback)
        if self.done():
            callback(self)


class Client:
    def __init__(self, node: Node, srv_type: Any, name: str, callback_group: Any) -> None:
        self.srv_type, self.srv_name = srv_type, _resolve(node, name)
        self.callback_group = callback_group

    def wait_for_service(self, timeout_sec: float | None = None) -> bool:
        deadline = time.monotonic() + (timeout_sec if timeout_sec is not None else 1e9)
        while not GRAPH.services(self.srv_name):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def call_async(self, request: Any) -> Future:
        future = Future()
        (service,) = GRAPH.services(self.srv_name)
        with service.lock:
            service.requests.append((request, future))
        return future

    def destroy(self) -> None:
        pass


class Timer:
    def __init__(self, period_s: float, callback: Any, callback_group: Any) -> None:
        self.period_s, self.callback, self.callback_group = period_s, callback, callback_group
        self.next_s = time.monotonic() + period_s

    def due(self) -> bool:
        if time.monotonic() < self.next_s:
            return False
        self.next_s = time.monotonic() + self.period_s
        return True


class Logger:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def __getattr__(self, level: str) -> Any:
        return lambda message, **_kw: self.lines.append((level, str(message)))


class Clock:
    def now(self) -> Any:
        return types.SimpleNamespace(nanoseconds=time.time_ns())


class Parameter:
    def __init__(self, name: str, value: Any) -> None:
        self.name, self.value = name, value


# --- Node ---------------------------------------------------------------------------------

class Node:
    """rclpy.node.Node (Jazzy) as far as its own state goes; see the module docstring."""

    def __init__(self, node_name: str, *, context: Any = None, cli_args: Any = None,
                 namespace: str | None = None, use_global_arguments: bool = True,
                 enable_rosout: bool = True, start_parameter_services: bool = True,
                 parameter_overrides: Any = None, allow_undeclared_parameters: bool = False,
                 automatically_declare_parameters_from_overrides: bool = False,
                 enable_logger_service: bool = False) -> None:
        # The assignments of rclpy jazzy node.py Node.__init__, in its order.
        self.__handle = None
        self._context = context
        self._parameters: dict = {}
        self._publishers: list = []
        self._subscriptions: list = []
        self._clients: list = []
        self._services: list = []
        self._timers: list = []
        self._guards: list = []
        self.__waitables: list = []
        self._default_callback_group = MutuallyExclusiveCallbackGroup()
        self._pre_set_parameters_callbacks: list = []
        self._on_set_parameters_callbacks: list = []
        self._post_set_parameters_callbacks: list = []
        self._rate_group = ReentrantCallbackGroup()
        self._allow_undeclared_parameters = allow_undeclared_parameters
        self._parameter_overrides = dict(OVERRIDES.get(node_name, {}))
        self._descriptors: dict = {}
        self.__node = (node_name, namespace or NAMESPACE)
        self._logger = Logger()
        self.__executor_weakref = None
        self._parameter_event_publisher = self.create_publisher(
            MESSAGES.message('rcl_interfaces/msg/ParameterEvent'), '/parameter_events', 10)
        self._clock = Clock()
        self._time_source = None
        if start_parameter_services:
            self._parameter_service = [
                self.create_service(MESSAGES.module('rcl_interfaces', 'srv').ListParameters,
                                    f'~/{name}', self._answer_parameters)
                for name in PARAMETER_SERVICES]
        self._type_description_service = self.create_service(
            MESSAGES.module('type_description_interfaces', 'srv').GetTypeDescription,
            '~/get_type_description', lambda request, response: response)

    def _answer_parameters(self, request: Any, response: Any) -> Any:
        response.names = sorted(self._parameters)
        return response

    # The entity properties exactly as rclpy defines them.
    @property
    def publishers(self) -> Any:
        yield from self._publishers

    @property
    def subscriptions(self) -> Any:
        yield from self._subscriptions

    @property
    def clients(self) -> Any:
        yield from self._clients

    @property
    def services(self) -> Any:
        yield from self._services

    @property
    def timers(self) -> Any:
        yield from self._timers

    @property
    def guards(self) -> Any:
        yield from self._guards

    @property
    def waitables(self) -> Any:
        yield from self.__waitables

    @property
    def executor(self) -> Any:
        return self.__executor_weakref

    @executor.setter
    def executor(self, executor: Any) -> None:
        self.__executor_weakref = executor

    def get_name(self) -> str:
        return self.__node[0]

    def get_namespace(self) -> str:
        return self.__node[1]

    def get_fully_qualified_name(self) -> str:
        return f'{self.__node[1].rstrip("/")}/{self.__node[0]}'

    def get_logger(self) -> Logger:
        return self._logger

    def get_clock(self) -> Clock:
        return self._clock

    def declare_parameter(self, name: str, value: Any = None, *_args: Any) -> Parameter:
        value = self._parameter_overrides.get(name, value)
        self._parameters[name] = Parameter(name, value)
        return self._parameters[name]

    def get_parameter(self, name: str) -> Parameter:
        return self._parameters[name]

    def create_publisher(self, msg_type: type, topic: str, qos: Any, **_kw: Any) -> Publisher:
        publisher = Publisher(self, msg_type, topic, qos)
        self._publishers.append(publisher)
        return publisher

    def create_subscription(self, msg_type: type, topic: str, callback: Any, qos: Any, *,
                            callback_group: Any = None, **_kw: Any) -> Subscription:
        sub = Subscription(self, msg_type, topic, callback, qos, callback_group)
        GRAPH.add(sub)
        with GRAPH.lock:
            latched = [m for (name, _), m in GRAPH.latched.items() if name == sub.topic_name]
        for msg in latched:
            sub.offer(msg)
        self._subscriptions.append(sub)
        return sub

    def create_service(self, srv_type: Any, name: str, callback: Any, *,
                       callback_group: Any = None, **_kw: Any) -> Service:
        service = Service(self, srv_type, name, callback, callback_group)
        GRAPH.add(service)
        self._services.append(service)
        return service

    def create_client(self, srv_type: Any, name: str, *, callback_group: Any = None,
                      **_kw: Any) -> Client:
        client = Client(self, srv_type, name, callback_group)
        self._clients.append(client)
        return client

    def create_timer(self, period_s: float, callback: Any, callback_group: Any = None,
                     **_kw: Any) -> Timer:
        timer = Timer(period_s, callback, callback_group)
        self._timers.append(timer)
        return timer

    def count_subscribers(self, topic: str) -> int:
        return len(GRAPH.subscriptions(_resolve(self, topic)))

    def destroy_client(self, client: Client) -> bool:
        if client in self._clients:
            self._clients.remove(client)
            return True
        return False

    def add_waitable(self, waitable: Any) -> None:
        self.__waitables.append(waitable)

    def remove_waitable(self, waitable: Any) -> None:
        self.__waitables.remove(waitable)

    def destroy_subscription(self, sub: Subscription) -> bool:
        GRAPH.remove(sub)
        if sub in self._subscriptions:
            self._subscriptions.remove(sub)
            return True
        return False

    def destroy_node(self) -> None:
        # rclpy: ``while self._services: self.destroy_service(self._services[0])`` etc.
        for entities in (self._publishers, self._subscriptions, self._clients, self._services,
                         self._timers, self._guards):
            while entities:
                GRAPH.remove(entities.pop(0))


OVERRIDES: dict[str, dict[str, Any]] = {}
"""Parameter overrides per node name (what launch or ``--ros-args -p`` would pass)."""
ERRORS: list[BaseException] = []
"""Exceptions raised by action execute callbacks (rclpy logs them)."""
NAMESPACE = '/'
"""The namespace of nodes that name none (what launch's ``PushRosNamespace`` gives)."""


class MutuallyExclusiveCallbackGroup:
    pass


class ReentrantCallbackGroup:
    pass


# --- executors ------------------------------------------------------------------------------

class Executor:
    """rclpy.executors.Executor: the wait set is rebuilt from the node lists on every spin."""

    def __init__(self, *, context: Any = None, num_threads: int | None = None) -> None:
        self._nodes: list[Node] = []
        self._stop = threading.Event()
        self.errors: list[BaseException] = []

    def add_node(self, node: Node) -> bool:
        self._nodes.append(node)
        node.executor = self
        return True

    def remove_node(self, node: Node) -> None:
        self._nodes.remove(node)

    def spin_once(self, timeout_sec: float | None = None) -> None:
        ready: list[Any] = []
        for node in list(self._nodes):
            # Executor._wait_for_ready_callbacks (Jazzy), lines 589-594.
            subscriptions = list(node.subscriptions)
            timers = list(node.timers)
            list(node.clients)
            services = list(node.services)
            list(node.guards)
            waitables = list(node.waitables)
            ready += [(s.callback, msg) for s in subscriptions for msg in s.take()]
            ready += [(t.callback, None) for t in timers if t.due()]
            for waitable in waitables:
                if isinstance(waitable, ActionServer):
                    ready += [(waitable.accept, request) for request in waitable.take()]
            for service in services:
                for request, future in service.take():
                    ready.append((lambda r, f, s=service: f.set_result(
                        s.callback(r, s.srv_type.Response())), (request, future)))
        for callback, argument in ready:
            if isinstance(argument, tuple):
                callback(*argument)
            elif argument is None:
                callback()
            else:
                callback(argument)
        if not ready:
            time.sleep(min(timeout_sec if timeout_sec is not None else 0.01, 0.01))

    def spin(self) -> None:
        try:
            while not self._stop.is_set():
                self.spin_once(0.01)
        except Exception as exc:  # the thread ends, as rclpy's spin thread would
            self.errors.append(exc)

    def shutdown(self, timeout_sec: float | None = None) -> bool:
        self._stop.set()
        return True


class SingleThreadedExecutor(Executor):
    pass


class MultiThreadedExecutor(Executor):
    pass


class ExternalShutdownException(Exception):
    pass


# --- actions, TF, QoS, time -------------------------------------------------------------

class _Waitable:
    """An rclpy.action ActionClient / ActionServer: a waitable the node holds."""

    def __init__(self, node: Node, action_type: Any, action_name: str) -> None:
        self._node, self.action_type = node, action_type
        self.action_name = _resolve(node, action_name)
        node.add_waitable(self)

    def destroy(self) -> None:
        GRAPH.remove(self)
        if self in list(self._node.waitables):
            self._node.remove_waitable(self)


class ServerGoalHandle:
    """rclpy.action.server.ServerGoalHandle: properties, not methods, as in rclpy."""

    def __init__(self, request: Any, feedback: Any) -> None:
        import numpy as np

        self.request = request
        self.goal_id = types.SimpleNamespace(uuid=np.frombuffer(
            next(_SEQ).to_bytes(16, 'little'), dtype=np.uint8))
        self._feedback = feedback
        self._state = 'executing'
        self._cancel = False

    @property
    def is_cancel_requested(self) -> bool:
        return self._cancel

    @property
    def is_active(self) -> bool:
        return self._state == 'executing'

    def publish_feedback(self, feedback: Any) -> None:
        if self._feedback is not None:
            self._feedback(types.SimpleNamespace(feedback=feedback))

    def succeed(self) -> None:
        self._state = 'succeeded'

    def abort(self) -> None:
        self._state = 'aborted'

    def canceled(self) -> None:
        self._state = 'canceled'


STATUS = {'succeeded': 4, 'canceled': 5, 'aborted': 6, 'executing': 6}
"""action_msgs/GoalStatus of a finished goal (still active after execute: aborted)."""


class ActionServer(_Waitable):
    """Goals are taken only while the server is in ``node.waitables`` (the wait set)."""

    def __init__(self, node: Node, action_type: Any, action_name: str, execute_callback: Any,
                 *, callback_group: Any = None, goal_callback: Any = None,
                 cancel_callback: Any = None, **_kw: Any) -> None:
        super().__init__(node, action_type, action_name)
        self.execute_callback, self.goal_callback = execute_callback, goal_callback
        self.cancel_callback = cancel_callback
        self.requests: list[tuple[Any, Future, Any]] = []
        self.lock = threading.Lock()
        GRAPH.add(self)

    def take(self) -> list[tuple[Any, Future, Any]]:
        with self.lock:
            taken, self.requests = self.requests, []
        return taken

    def accept(self, goal: Any, future: Future, feedback: Any) -> None:
        accepted = self.goal_callback is None or self.goal_callback(goal) == 2
        handle = ServerGoalHandle(goal, feedback)
        client_handle = ClientGoalHandle(self, handle, accepted)
        future.set_result(client_handle)
        if accepted:
            threading.Thread(target=self._execute, args=(handle, client_handle),
                             daemon=True).start()

    def _execute(self, handle: ServerGoalHandle, client_handle: ClientGoalHandle) -> None:
        try:
            result = self.execute_callback(handle)
        except Exception as exc:  # rclpy logs it, aborts the goal and sends an empty Result
            ERRORS.append(exc)
            handle.abort()
            result = self.action_type.Result()
        client_handle.result.set_result(types.SimpleNamespace(status=STATUS[handle._state],
                                                              result=result))


class ClientGoalHandle:
    def __init__(self, server: ActionServer, handle: ServerGoalHandle, accepted: bool) -> None:
        self._server, self._handle, self.accepted = server, handle, accepted
        self.result = Future()

    def get_result_async(self) -> Future:
        return self.result

    def cancel_goal_async(self) -> Future:
        future = Future()
        callback = self._server.cancel_callback
        if callback is not None and callback(self._handle) == 2:
            self._handle._cancel = True
        future.set_result(types.SimpleNamespace(goals_canceling=[self._handle._cancel]))
        return future


class ActionClient(_Waitable):
    def __init__(self, node: Node, action_type: Any, action_name: str, *,
                 callback_group: Any = None, **_kw: Any) -> None:
        super().__init__(node, action_type, action_name)

    def _servers(self) -> list[ActionServer]:
        with GRAPH.lock:
            return [s for s in GRAPH.entities
                    if isinstance(s, ActionServer) and s.action_name == self.action_name]

    def server_is_ready(self) -> bool:
        return bool(self._servers())

    def wait_for_server(self, timeout_sec: float | None = None) -> bool:
        deadline = time.monotonic() + (timeout_sec if timeout_sec is not None else 1e9)
        while not self._servers():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def send_goal_async(self, goal: Any, feedback_callback: Any = None, **_kw: Any) -> Future:
        future = Future()
        (server,) = self._servers()
        with server.lock:
            server.requests.append((goal, future, feedback_callback))
        return future


class Buffer:
    """tf2_ros.Buffer as far as direct lookups go: the newest transform parent -> child."""

    def __init__(self, cache_time: Any = None, node: Node | None = None) -> None:
        self._transforms: dict[tuple[str, str], Any] = {}
        self._ready = threading.Condition()
        if node is not None:
            node.create_service(MESSAGES.module('tf2_msgs', 'srv').FrameGraph, 'tf2_frames',
                                lambda request, response: response)

    def set_transforms(self, msg: Any) -> None:
        with self._ready:
            for t in msg.transforms:
                self._transforms[(t.header.frame_id, t.child_frame_id)] = t
            self._ready.notify_all()

    def lookup_transform(self, target: str, source: str, time_: Any,
                         timeout: Any = None) -> Any:
        wait = (timeout or {}).get('seconds', 0.0)
        with self._ready:
            if not self._ready.wait_for(lambda: (target, source) in self._transforms, wait):
                raise TransformException(f'"{target}" to "{source}": no transform')
            return self._transforms[(target, source)]


class TransformException(Exception):
    pass


class TransformListener:
    def __init__(self, buffer: Buffer, node: Node, **_kw: Any) -> None:
        tf = MESSAGES.message('tf2_msgs/msg/TFMessage')
        self.subs = [node.create_subscription(tf, topic, buffer.set_transforms, 100)
                     for topic in ('/tf', '/tf_static')]


class TransformBroadcaster:
    def __init__(self, node: Node, qos: Any = None) -> None:
        self.pub = node.create_publisher(MESSAGES.message('tf2_msgs/msg/TFMessage'), '/tf', 100)

    def sendTransform(self, transforms: Any) -> None:  # noqa: N802 (tf2_ros's name)
        self.pub.publish(MESSAGES.message('tf2_msgs/msg/TFMessage')(transforms=list(transforms)))


class StaticTransformBroadcaster(TransformBroadcaster):
    def __init__(self, node: Node, qos: Any = None) -> None:
        self.pub = node.create_publisher(MESSAGES.message('tf2_msgs/msg/TFMessage'),
                                         '/tf_static', 1)
        self.pub.transient_local = True  # tf2_ros: durability TRANSIENT_LOCAL, depth 1


class CvBridgeError(Exception):
    pass


class CvBridge:
    """cv_bridge's CvBridge for the encodings we use, over the numpy path (no OpenCV)."""

    def imgmsg_to_cv2(self, msg: Any, desired_encoding: str = 'passthrough') -> Any:
        import numpy as np
        from pyrua_primitives.conversions import images

        if desired_encoding == 'rgb8':
            return images.image_to_rgb(msg)
        dtype = {'32FC1': '<f4', '16UC1': '<u2'}[msg.encoding]
        raw = np.frombuffer(memoryview(msg.data).cast('B'), dtype=np.uint8)
        return raw.reshape(msg.height, msg.step)[:, :msg.width * np.dtype(dtype).itemsize] \
            .copy().view(dtype)

    def cv2_to_imgmsg(self, array: Any, encoding: str = 'passthrough', header: Any = None) -> Any:
        import numpy as np

        data = np.ascontiguousarray(array)
        msg = MESSAGES.message('sensor_msgs/msg/Image')(
            header=header, height=data.shape[0], width=data.shape[1], encoding=encoding,
            is_bigendian=0, step=data.strides[0], data=data.view(np.uint8).reshape(-1))
        return msg


MESSAGES: Messages = None  # type: ignore[assignment]  # set by install()
_SEQ = itertools.count()


def _modules() -> dict[str, types.ModuleType]:
    here = sys.modules[__name__]
    made = {name: types.ModuleType(name) for name in MODULES}
    rclpy = made['rclpy']
    rclpy.init = lambda *, args=None, context=None, **_kw: None
    rclpy.try_shutdown = lambda **_kw: None
    rclpy.ok = lambda **_kw: True
    for name in ('node', 'executors', 'callback_groups', 'action', 'qos', 'duration', 'time'):
        setattr(rclpy, name, made[f'rclpy.{name}'])
    made['rclpy.node'].Node = Node
    for name in ('Executor', 'SingleThreadedExecutor', 'MultiThreadedExecutor',
                 'ExternalShutdownException'):
        setattr(made['rclpy.executors'], name, getattr(here, name))
    made['rclpy.callback_groups'].ReentrantCallbackGroup = ReentrantCallbackGroup
    made['rclpy.callback_groups'].MutuallyExclusiveCallbackGroup = MutuallyExclusiveCallbackGroup
    action = made['rclpy.action']
    action.ActionClient, action.ActionServer = ActionClient, ActionServer
    action.CancelResponse = types.SimpleNamespace(ACCEPT=2, REJECT=1)
    action.GoalResponse = types.SimpleNamespace(ACCEPT=2, REJECT=1)
    made['rclpy.qos'].qos_profile_sensor_data = 'sensor_data'
    made['rclpy.qos'].QoSProfile = lambda **kw: kw
    made['rclpy.qos'].ReliabilityPolicy = types.SimpleNamespace(RELIABLE=1, BEST_EFFORT=2)
    made['rclpy.duration'].Duration = lambda **kw: kw
    made['rclpy.time'].Time = lambda **kw: kw
    tf2 = made['tf2_ros']
    for name in ('Buffer', 'TransformException', 'TransformListener', 'TransformBroadcaster',
                 'StaticTransformBroadcaster'):
        setattr(tf2, name, getattr(here, name))
    made['cv_bridge'].CvBridge, made['cv_bridge'].CvBridgeError = CvBridge, CvBridgeError
    for package in MESSAGE_PACKAGES:
        made[package] = types.ModuleType(package)
        for kind in ('msg', 'srv', 'action'):
            made[f'{package}.{kind}'] = MESSAGES.module(package, kind)
            setattr(made[package], kind, made[f'{package}.{kind}'])
    return made


def install(monkeypatch: Any, typestore: Any) -> None:
    """Put the double's modules into ``sys.modules`` (undone with the monkeypatch)."""
    global MESSAGES
    from pyrua_primitives.conversions.control import CONTROL_MSGS_DEFINITIONS
    from rosbags.typesys import get_types_from_msg

    for name, text in CONTROL_MSGS_DEFINITIONS.items():
        if name not in typestore.fielddefs:
            typestore.register(get_types_from_msg(text, name))
    MESSAGES = Messages(typestore)
    for name, module in _modules().items():
        monkeypatch.setitem(sys.modules, name, module)
    for name in list(sys.modules):
        if '.ros.' in name and name.startswith(('pyrua_agent', 'pyrua_sim', 'pyrua_primitives')):
            monkeypatch.delitem(sys.modules, name)
    from pyrua_primitives.ros import messages
    messages.message_class.cache_clear()
    monkeypatch.setattr(GRAPH, 'entities', [])
    monkeypatch.setattr(GRAPH, 'latched', {})
    monkeypatch.setattr(sys.modules[__name__], 'OVERRIDES', {})
    monkeypatch.setattr(sys.modules[__name__], 'NAMESPACE', '/')
    monkeypatch.setattr(sys.modules[__name__], 'ERRORS', [])

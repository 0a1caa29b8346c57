"""
Our Node subclasses never shadow an attribute of rclpy's Node (Jazzy).

rclpy's executor iterates ``node.services`` (``yield from self._services``) and the other
entity lists on every wait; a subclass that assigns ``self._services`` replaces rclpy's
list, and the executor thread dies with a TypeError (agent_node) or rclpy's parameter
services drop out of the wait set (sim_node). ``RCLPY_NODE_NAMES`` was extracted from the
source named below (an AST walk of ``class Node``: every ``self.X = ...``, name-mangled
ones as ``_Node__X``, and every method and property); the test walks each of our node
classes the same way.
"""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2]
RCLPY_SOURCE = ('ros2/rclpy jazzy 85415f713bf7f03152799496dc4287a75df1fc36 '
                'rclpy/rclpy/node.py')
RCLPY_NODE_ATTRIBUTES = frozenset({
    '_Node__executor_weakref', '_Node__handle', '_Node__node', '_Node__waitables',
    '_allow_undeclared_parameters', '_clients', '_clock', '_context',
    '_default_callback_group', '_descriptors', '_guards', '_logger', '_logger_service',
    '_on_set_parameters_callbacks', '_parameter_event_publisher', '_parameter_overrides',
    '_parameter_service', '_parameters', '_post_set_parameters_callbacks',
    '_pre_set_parameters_callbacks', '_publishers', '_rate_group', '_services',
    '_subscriptions', '_time_source', '_timers', '_type_description_service'})
"""Every ``self.X = ...`` in rclpy's ``Node`` (``RCLPY_SOURCE``)."""
RCLPY_NODE_MEMBERS = frozenset({
    'PARAM_REL_TOL', '_apply_descriptor', '_apply_descriptor_and_set', '_apply_descriptors',
    '_apply_floating_point_range', '_apply_integer_range', '_call_post_set_parameters_callback',
    '_call_pre_set_parameters_callback', '_check_undeclared_parameters',
    '_count_clients_or_servers', '_count_publishers_or_subscribers',
    '_declare_parameter_common', '_get_info_by_topic', '_set_parameters_atomically',
    '_set_parameters_atomically_common', '_validate_qos_or_depth_parameter',
    '_validate_topic_or_service_name', '_wake_executor', 'add_on_set_parameters_callback',
    'add_post_set_parameters_callback', 'add_pre_set_parameters_callback', 'add_waitable',
    'clients', 'context', 'count_clients', 'count_publishers', 'count_services',
    'count_subscribers', 'create_client', 'create_guard_condition', 'create_publisher',
    'create_rate', 'create_service', 'create_subscription', 'create_timer',
    'declare_parameter', 'declare_parameters', 'default_callback_group', 'describe_parameter',
    'describe_parameters', 'destroy_client', 'destroy_guard_condition', 'destroy_node',
    'destroy_publisher', 'destroy_rate', 'destroy_service', 'destroy_subscription',
    'destroy_timer', 'executor', 'get_client_names_and_types_by_node', 'get_clock',
    'get_fully_qualified_name', 'get_fully_qualified_node_names', 'get_logger', 'get_name',
    'get_namespace', 'get_node_names', 'get_node_names_and_namespaces',
    'get_node_names_and_namespaces_with_enclaves', 'get_parameter', 'get_parameter_or',
    'get_parameter_type', 'get_parameter_types', 'get_parameters', 'get_parameters_by_prefix',
    'get_publisher_names_and_types_by_node', 'get_publishers_info_by_topic',
    'get_service_names_and_types', 'get_service_names_and_types_by_node',
    'get_subscriber_names_and_types_by_node', 'get_subscriptions_info_by_topic',
    'get_topic_names_and_types', 'guards', 'handle', 'has_parameter', 'list_parameters',
    'publishers', 'remove_on_set_parameters_callback', 'remove_post_set_parameters_callback',
    'remove_pre_set_parameters_callback', 'remove_waitable', 'resolve_service_name',
    'resolve_topic_name', 'services', 'set_descriptor', 'set_parameters',
    'set_parameters_atomically', 'subscriptions', 'timers', 'undeclare_parameter',
    'wait_for_node', 'waitables'})
"""Every method, property and class attribute of rclpy's ``Node`` (``RCLPY_SOURCE``)."""
OVERRIDDEN_ON_PURPOSE = frozenset()
"""rclpy members a node of ours overrides deliberately (none)."""


def _node_classes():
    """Yield (path, class) for every class in a ``ros/`` module that subclasses Node."""
    for path in sorted(SRC.glob('pyrua_*/pyrua_*/ros/*.py')):
        tree = ast.parse(path.read_text(), filename=str(path))
        for cls in ast.walk(tree):
            if isinstance(cls, ast.ClassDef) and any(
                    ast.unparse(b) in ('Node', 'rclpy.node.Node') for b in cls.bases):
                yield path, cls


def _assigned(cls):
    """Return the names ``cls`` assigns on ``self`` and the members its body defines."""
    assigned = set()
    for node in ast.walk(cls):
        targets = []
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            targets.append(node)
        for target in targets:
            if isinstance(target.value, ast.Name) and target.value.id == 'self':
                name = target.attr
                assigned.add(f'_{cls.name}{name}' if name.startswith('__') else name)
    members = {item.name for item in cls.body
               if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))} - {'__init__'}
    members |= {t.id for item in cls.body if isinstance(item, ast.Assign)
                for t in item.targets if isinstance(t, ast.Name)}
    return assigned, members


NODE_CLASSES = {f'{path.stem}.{cls.name}': cls for path, cls in _node_classes()}


def test_every_node_of_ours_is_checked():
    assert set(NODE_CLASSES) == {'agent_node.AgentNode', 'primitives_node.PrimitivesNode',
                                 'sim_node.SimNode'}


@pytest.mark.parametrize('name', sorted(NODE_CLASSES))
def test_no_attribute_shadows_rclpy_node(name):
    assigned, members = _assigned(NODE_CLASSES[name])
    rclpy_names = RCLPY_NODE_ATTRIBUTES | RCLPY_NODE_MEMBERS
    clashes = sorted((assigned | members) & rclpy_names - OVERRIDDEN_ON_PURPOSE)
    assert not clashes, (f'{name} assigns or defines {clashes}, which rclpy Node (Jazzy, '
                         f'{RCLPY_SOURCE}) uses itself; rename them (e.g. _evaluator)')


def test_the_walk_sees_a_shadowing_assignment():
    cls = ast.parse('class X(Node):\n    def __init__(self):\n        self._services = 1\n'
                    '        self.__w = 2\n    def services(self):\n        pass\n').body[0]
    assigned, members = _assigned(cls)
    assert {'_services', '_X__w'} <= assigned and 'services' in members

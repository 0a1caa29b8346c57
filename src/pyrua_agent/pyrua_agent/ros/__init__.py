"""
ROS 2 edge of the agent: the agent node and the ActionClient transport.

Importing this package imports no ROS; ``agent_node`` and ``action_transport`` do.
``config`` is ROS-free and tested without ROS.
"""

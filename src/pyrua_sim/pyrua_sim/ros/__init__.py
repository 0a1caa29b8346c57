"""
ROS 2 edge of the twin: the sim node (standard driver interfaces + evaluator services).

Importing this package imports no ROS; ``sim_node`` does. ``config`` and ``twin_host``
are ROS-free and tested without ROS.
"""

"""
ROS 2 edge of the primitives: action servers, the ROS station, names and parameters.

Importing this package imports no ROS; the node modules do (``primitives_node``,
``ros_station``, ``params``, ``messages``). ``names``, ``config`` and
``parameters`` are ROS-free and tested without ROS.
"""

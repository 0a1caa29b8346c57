"""
ROS-free conversions between our dataclasses and numpy arrays and ROS 2 messages.

Nothing here imports ROS: messages are read by field name and built through a factory
``make(type_name, **fields)``, so the same functions serve the rosidl classes in the nodes
(``ros/``) and the ``rosbags`` types in the tests and the recorder.
"""

from .fields import from_message, message_field_names, MessageFactory, to_fields, to_message

__all__ = ['MessageFactory', 'from_message', 'message_field_names', 'to_fields', 'to_message']

"""
The optional live view: an episode's channels streamed to Foxglove Studio as it runs.

``FoxgloveLiveView`` publishes what the recorder writes over the Foxglove SDK's websocket
server on 127.0.0.1; ``ObserverFanout`` hands every recorder call to the recorder and the
view. Needs the ``live`` extra (``foxglove-sdk``).
"""

from .fanout import ObserverFanout
from .foxglove_view import FoxgloveLiveView, require_foxglove

__all__ = [
    'FoxgloveLiveView',
    'ObserverFanout',
    'require_foxglove',
]

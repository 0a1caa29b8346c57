"""
Vision-language-action policies: openpi-protocol clients, a server, and the rollout.

``robo.vla`` (``PrimitiveLibrary.vla``) calls ``run_configured_rollout``: it connects a
``WebsocketPolicyClient`` to the configured endpoint and runs ``run_rollout``. The optional
dependencies (msgpack, websockets) are imported only when a client or server is used:
``pip install 'pyrua_primitives[vla]'``.
"""

from .client import PolicyClient, PolicyError, WebsocketPolicyClient
from .config import VlaConfig
from .observation import build_observation, resize_with_pad
from .rollout import check_chunk, run_configured_rollout, run_rollout, STOP_REASONS, VlaResult
from .server import PolicyServer

__all__ = [
    'PolicyClient',
    'PolicyError',
    'PolicyServer',
    'STOP_REASONS',
    'VlaConfig',
    'VlaResult',
    'WebsocketPolicyClient',
    'build_observation',
    'check_chunk',
    'resize_with_pad',
    'run_configured_rollout',
    'run_rollout',
]

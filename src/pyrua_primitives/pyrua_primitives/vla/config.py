"""
Settings of the VLA policy client and rollout: endpoint, timeouts, observation layout, rate.

The wire conventions are the openpi ones (msgpack-numpy over a websocket). The observation
is a flat dict: the head image, the arm's wrist image, the arm's state and the prompt, under
the keys configured here (defaults: openpi's LIBERO layout). The state and every action are
seven numbers: six absolute joint angles ``joint1..joint6`` in radians, then the gripper
opening **normalised** to 0..1 (0 = closed, 1 = fully open at the arm's
``JointLimits.gripper_max_width_m``), the form RoboTwin and RoboDojo policies use.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from urllib.parse import urlsplit


@dataclass(frozen=True, slots=True, kw_only=True)
class VlaConfig:
    """
    Where the policy is served and how a rollout talks to it.

    :param endpoint: ``'host:port'`` (or ``'ws://host:port'``) of an openpi-compatible policy
        server; '' means no VLA is configured and ``robo.vla`` says how to configure one.
    :param connect_timeout_s: longest wait for the connection and the server's metadata.
    :param timeout_s: longest wait for one inference reply.
    :param head_image_key: observation key of the head camera image ('' leaves it out).
    :param wrist_image_key: observation key of the arm's wrist camera image ('' leaves it out).
    :param state_key: observation key of the 7-number state (6 joints in rad, gripper 0..1).
    :param prompt_key: observation key of the instruction text.
    :param actions_key: reply key of the action chunk (H x 7).
    :param image_height_px: images are resized with padding (aspect kept) to this height.
    :param image_width_px: ... and this width.
    :param channels_first: send images as 3 x H x W instead of H x W x 3 (uint8 either way).
    :param control_hz: rate at which the actions of a chunk are executed, Hz.
    :param replan_steps: most actions of one chunk executed before the policy is asked again.
    :param segment_steps: actions sent to the station per trajectory call; the cancel token
        is checked between calls.
    :param gripper_deadband: a change of the normalised gripper target smaller than this is
        not sent to the gripper (so a held object is not re-squeezed every step).
    :param descend: let the policy bring the TCP inside the table clearance (needed to grasp
        objects on the table); the finger-tip floor and the link rules of the gate still hold.
    :param max_steps: largest ``steps`` a single rollout accepts.
    """

    endpoint: str = ''
    connect_timeout_s: float = 5.0
    timeout_s: float = 10.0
    head_image_key: str = 'observation/image'
    wrist_image_key: str = 'observation/wrist_image'
    state_key: str = 'observation/state'
    prompt_key: str = 'prompt'
    actions_key: str = 'actions'
    image_height_px: int = 224
    image_width_px: int = 224
    channels_first: bool = False
    control_hz: float = 15.0
    replan_steps: int = 8
    segment_steps: int = 4
    gripper_deadband: float = 0.05
    descend: bool = True
    max_steps: int = 1000

    def __post_init__(self) -> None:
        for name, low, high in (
            ('connect_timeout_s', 0.05, 120.0),
            ('timeout_s', 0.05, 600.0),
            ('image_height_px', 16, 2048),
            ('image_width_px', 16, 2048),
            ('control_hz', 1.0, 500.0),
            ('replan_steps', 1, 1000),
            ('segment_steps', 1, 100),
            ('gripper_deadband', 0.0, 1.0),
            ('max_steps', 1, 100000),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or not low <= value <= high:
                raise ValueError(f'vla.{name}={value!r} vs allowed [{low}, {high}]; pick a '
                                 'value inside the range')
        keys = ('state_key', 'prompt_key', 'actions_key')
        for name in keys:
            if not getattr(self, name):
                raise ValueError(f'vla.{name} is empty vs a key name; give the key the policy '
                                 'server expects')
        if self.endpoint:
            self.host_port()

    def host_port(self) -> tuple[str, int]:
        """
        Return (host, port) of ``endpoint``.

        :raises ValueError: when the endpoint is empty or not ``host:port``.
        """
        text = self.endpoint if '://' in self.endpoint else f'ws://{self.endpoint}'
        parts = urlsplit(text)
        try:
            port = parts.port
        except ValueError:
            port = None
        if parts.scheme != 'ws' or not parts.hostname or port is None \
                or parts.path not in ('', '/'):
            raise ValueError(f"vla.endpoint={self.endpoint!r} vs 'host:port' (e.g. "
                             "'127.0.0.1:8000'); give the policy server's address")
        return parts.hostname, port

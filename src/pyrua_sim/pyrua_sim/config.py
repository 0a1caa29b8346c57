"""Settings of the simulated station: control rate, render size, depth, gripper detection."""

from __future__ import annotations

from dataclasses import dataclass, fields
import math

from .errors import ConfigError


@dataclass(frozen=True, kw_only=True, slots=True)
class StationConfig:
    """
    How ``MujocoStation`` drives and renders the twin. Defaults run the README episode.

    ``control_rate_hz`` must divide the physics rate (1 / timestep: 250 Hz for
    ``station.xml``): each control step sets new joint targets, checks the cancel token
    and runs ``physics rate / control rate`` physics steps (2 at 125 Hz).
    """

    control_rate_hz: float = 125.0
    """Joint targets are interpolated and the cancel token checked at this rate, Hz."""
    render_width: int = 640
    """Captured image width, pixels (all three cameras)."""
    render_height: int = 480
    """Captured image height, pixels."""
    depth_enabled: bool = False
    """Allow ``capture(camera, depth=True)``; the agent sees RGB only unless this is set."""
    position_tolerance_rad: float = 0.01
    """A trajectory is completed when every joint ends this close to its last waypoint."""
    settle_timeout_s: float = 0.5
    """Simulated time a trajectory may take after its last waypoint time to settle."""
    gripper_tolerance_m: float = 0.002
    """The gripper has reached a width when it is this close to the command, metres."""
    gripper_stall_speed_m_s: float = 0.002
    """Fingers slower than this for ``gripper_stall_time_s`` have stopped, m/s."""
    gripper_stall_time_s: float = 0.1
    """How long the fingers must be still before the gripper reports a stall, seconds."""
    gripper_timeout_s: float = 2.0
    """Longest simulated time a gripper command may take, seconds."""

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool):
                continue
            if not math.isfinite(value) or value <= 0:
                raise ConfigError(
                    f'StationConfig.{field.name}={value!r} vs bound > 0; give a positive number'
                )
        for name in ('render_width', 'render_height'):
            value = getattr(self, name)
            if not isinstance(value, int) or value > 4096:
                raise ConfigError(
                    f'StationConfig.{name}={value!r} vs an int in 1..4096; give a pixel count'
                )

    @property
    def control_period_s(self) -> float:
        """Return the control period in seconds."""
        return 1.0 / self.control_rate_hz

"""Settings of the sim node (ROS-free dataclass; one ROS parameter per leaf field)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pyrua_primitives.conversions.control import (
    check_gripper_interface,
    DEFAULT_GRIPPER_INTERFACE,
)

from ..config import StationConfig


@dataclass(frozen=True, kw_only=True)
class SimNodeConfig:
    """
    Settings of ``sim_node``: which layout the twin starts with and how often it publishes.

    :param task: registered task name (``pyrua_sim.tasks.TASKS``).
    :param seed: layout seed, 0..999.
    :param layout: layout index, 0..49.
    :param station: the twin's station settings (control rate, render size, depth, ...).
    :param state_rate_hz: joint states, /clock and camera TF, per wall-clock second.
    :param camera_rate_hz: camera images per second, rendered only while subscribed.
    :param executor_threads: MultiThreadedExecutor threads (two arms' motions, cameras,
        services and cancels at once).
    :param gripper_interface: the gripper action served, as a real driver would:
        ``'parallel'`` (ParallelGripperCommand) or ``'gripper_command'``. Its one home is
        the primitives node's ``station.gripper_interface``: ``pyrua.launch.py`` passes that
        value here and refuses a YAML file that sets this one.
    """

    task: str = 'pick_place'
    seed: int = 0
    layout: int = 0
    station: StationConfig = field(default_factory=StationConfig)
    state_rate_hz: float = 50.0
    camera_rate_hz: float = 10.0
    executor_threads: int = 6
    gripper_interface: str = DEFAULT_GRIPPER_INTERFACE

    def __post_init__(self) -> None:
        check_gripper_interface(self.gripper_interface)
        for name in ('state_rate_hz', 'camera_rate_hz'):
            value = getattr(self, name)
            if not 0.1 <= value <= 1000.0:
                raise ValueError(f'{name}={value} vs allowed [0.1, 1000] Hz')
        if self.executor_threads < 4:
            raise ValueError(f'executor_threads={self.executor_threads} vs >= 4; two motions, '
                             'a cancel and the publishers must run at once')

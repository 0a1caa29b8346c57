"""Primitive library, RGB perception, kinematics and the Station interface."""

from .cancel import CancelToken
from .errors import MissingDependency, PrimitiveError
from .station import (
    ArmBase,
    ARMS,
    CameraFrame,
    CameraIntrinsics,
    CameraModel,
    CAMERAS,
    GripperResult,
    JointLimits,
    JointState,
    Station,
    TrajectoryResult,
)

__all__ = [
    'ARMS',
    'ArmBase',
    'CAMERAS',
    'CameraFrame',
    'CameraIntrinsics',
    'CameraModel',
    'CancelToken',
    'GripperResult',
    'JointLimits',
    'JointState',
    'MissingDependency',
    'PrimitiveError',
    'Station',
    'TrajectoryResult',
]

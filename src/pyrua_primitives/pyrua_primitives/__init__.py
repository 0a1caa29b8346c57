"""Primitive library, RGB perception, kinematics and the Station interface."""

from .cancel import CancelToken
from .errors import MissingDependency, PrimitiveError
from .kinematics import JointTrajectory
from .motion import MotionConfig, MotionScene, plan_joint_move, plan_move, PlanResult
from .perception import BackProjectResult, CameraMeta, LocateResult
from .safety import check_trajectory, SafetyConfig, SafetyResult
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
    'BackProjectResult',
    'CAMERAS',
    'CameraFrame',
    'CameraIntrinsics',
    'CameraMeta',
    'CameraModel',
    'CancelToken',
    'GripperResult',
    'JointLimits',
    'JointState',
    'JointTrajectory',
    'LocateResult',
    'MissingDependency',
    'MotionConfig',
    'MotionScene',
    'PlanResult',
    'PrimitiveError',
    'SafetyConfig',
    'SafetyResult',
    'Station',
    'TrajectoryResult',
    'check_trajectory',
    'plan_joint_move',
    'plan_move',
]

"""
Kinematics of the ARX-X5 arm: forward kinematics, IK, top-down grasps and joint paths.

Every arm constant lives in ``arx_x5``; the arm's mounting and the table height come from
the Station (``Station.arm_base(arm).world_from_base``, ``Station.table_height_m()``).
"""

from .forward import joint_vector, link_frames, tcp_jacobian, tcp_pose
from .inverse import IkResult, solve_ik
from .orientation import closing_heading_rad, top_down_rotation
from .path import joint_path, JointTrajectory, line_path, PathResult, time_waypoints
from .top_down import envelope_reason, top_down_seeds

__all__ = [
    'IkResult',
    'JointTrajectory',
    'PathResult',
    'closing_heading_rad',
    'envelope_reason',
    'joint_path',
    'joint_vector',
    'line_path',
    'link_frames',
    'solve_ik',
    'tcp_jacobian',
    'tcp_pose',
    'time_waypoints',
    'top_down_rotation',
    'top_down_seeds',
]

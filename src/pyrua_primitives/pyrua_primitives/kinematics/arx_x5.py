"""
Every number that describes one ARX-X5 arm (X5A variant), with its source.

Sources are the sections of ``shared/reference/arx_x5.md``:

- §1.2 joint table of the X5A URDF (RoboTwin ``assets/embodiments/ARX-X5/X5A.urdf``):
  joint origins (parent link -> child link, metres), origin rpy (radians), joint axes.
- §1.4 ARX official soft limits (``ARXroboticsX/X5`` readme table), used for planning.
- §1.7 velocity limits (``real-stanford/arx5-sdk`` ``include/app/config.h``) and the
  end-effector speed limit.
- §1.5 the TCP: centre of the finger pads, 0.137 m along link6 +x (the approach axis);
  fingers close along link6 +-y. Collision capsules from ``Vertax42/mjlab`` ``X5.xml``.

This module holds data only; the arm's station mounting (``world_from_base``) and the table
height come from the Station, never from here.
"""

import math

import numpy as np

JOINT_NAMES: tuple[str, ...] = ('joint1', 'joint2', 'joint3', 'joint4', 'joint5', 'joint6')

# §1.2: origin xyz of joint i in its parent link frame, metres.
JOINT_ORIGIN_XYZ_M = np.array([
    [0.0, 0.0, 0.0605],
    [0.02, 0.0, 0.04],
    [-0.264, 0.0, 0.0],
    [0.245, 0.0, -0.056],
    [0.06775, 0.0005, -0.0865],
    [0.02895, 0.0, 0.0865],
])
# §1.2: origin roll, pitch, yaw of joint i, radians (URDF fixed-axis xyz convention).
JOINT_ORIGIN_RPY_RAD = np.array([
    [0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0],
    [math.pi, 0.0, 0.0],
    [0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0],
    [-math.pi, 0.0, 0.0],
])
# §1.2: joint axis in the child link frame (z, y, y, y, z, x).
JOINT_AXES = np.array([
    [0.0, 0.0, 1.0],
    [0.0, 1.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.0, 0.0, 1.0],
    [1.0, 0.0, 0.0],
])

# §1.4 ARX official soft limits (rad), intersected with the mechanical limits: joint2 and
# joint3 stop mechanically at 0 rad, inside their -0.1 rad soft limit (the twin's actuator
# ctrlrange is the same intersection). The wider mechanical ranges belong to the model.
LOWER_LIMITS_RAD = np.array([-1.57, 0.0, 0.0, -1.29, -1.48, -1.74])
UPPER_LIMITS_RAD = np.array([1.57, 3.6, 3.0, 1.29, 1.48, 1.74])
# §1.7 arx5-sdk X5 joint velocity limits (rad/s) and end-effector speed limit (m/s).
VELOCITY_LIMITS_RAD_S = np.array([5.0, 5.0, 5.5, 5.5, 5.0, 5.0])
TCP_SPEED_LIMIT_M_S = 0.6

# §1.5: TCP = finger pad centre on the approach axis (link6 +x); pads span 0.117-0.157 m,
# so the finger tips are 0.02 m beyond the TCP along the approach axis.
TCP_OFFSET_M = 0.137
FINGERTIP_BEYOND_TCP_M = 0.02
# §1.6: largest opening between the finger pads.
GRIPPER_MAX_WIDTH_M = 0.088

# §1.5 (mjlab X5.xml): collision capsules as (link index 0..6 where 0 = base, segment end a,
# segment end b in that link's frame, radius m). The gripper capsule (link6, x 0.08 to the
# finger tips, radius 0.05: fully open pads reach 0.048 m off axis) is DERIVED from the §1.2
# finger origins, the §1.5 pads and the §1.6 stroke. These are approximations for clearance
# checks, not the collision model of the twin.
LINK_CAPSULES: tuple[tuple[int, tuple[float, ...], tuple[float, ...], float], ...] = (
    (0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.06), 0.04),
    (1, (0.0, 0.0, -0.015), (0.0, 0.0, 0.015), 0.025),
    (2, (-0.25, 0.0, 0.0), (-0.01, 0.0, 0.0), 0.03),
    (3, (0.07, 0.0, -0.055), (0.23, 0.0, -0.055), 0.025),
    (4, (-0.03, 0.0, 0.0), (0.03, 0.0, 0.0), 0.025),
    (5, (0.04, 0.0, 0.01), (0.04, 0.0, 0.09), 0.02),
    (6, (0.0, 0.0, 0.0), (0.10, 0.0, 0.0), 0.025),
    (6, (0.08, 0.0, 0.0), (TCP_OFFSET_M + FINGERTIP_BEYOND_TCP_M, 0.0, 0.0), 0.05),
)
# Capsules that must stay above the table: arm links 2..6 without the gripper, which may
# touch down on a measured descent and is covered by the finger-tip floor instead.
TABLE_CHECKED_CAPSULES: tuple[int, ...] = (2, 3, 4, 5, 6)

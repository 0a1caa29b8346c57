"""
Observations for a policy, built from the Station only (no privileged data).

One observation holds, under the keys of ``VlaConfig``: the head camera image, the acting
arm's wrist camera image (both uint8, resized with padding like openpi's
``image_tools.resize_with_pad``), the arm's state (six joint angles in radians and the
gripper opening normalised to 0..1, float32) and the instruction text. Nothing else: no
object poses, no task state, no depth.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from .config import VlaConfig
from ..station import CameraFrame, Station

Capture = Callable[[str], CameraFrame]


def resize_with_pad(rgb: np.ndarray, height: int, width: int) -> np.ndarray:
    """
    Resize an H x W x 3 uint8 image to ``height`` x ``width``, keeping its aspect ratio.

    The image is scaled to fit and centred; the borders are black (openpi's convention).

    :param rgb: H x W x 3 uint8 image.
    :param height: output height in pixels.
    :param width: output width in pixels.
    :returns: a ``height`` x ``width`` x 3 uint8 image.
    :raises ValueError: for an image that is not H x W x 3 uint8.
    """
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f'image of shape {rgb.shape} and dtype {rgb.dtype} vs H x W x 3 '
                         'uint8; pass an RGB frame')
    h, w = rgb.shape[:2]
    scale = min(height / h, width / w)
    new_h, new_w = max(1, round(h * scale)), max(1, round(w * scale))
    resized = cv2.resize(rgb, (new_w, new_h), interpolation=cv2.INTER_AREA)
    out = np.zeros((height, width, 3), dtype=np.uint8)
    top, left = (height - new_h) // 2, (width - new_w) // 2
    out[top:top + new_h, left:left + new_w] = resized
    return out


def normalised_gripper(width_m: float, max_width_m: float) -> float:
    """Return a gripper opening in metres as 0..1 of the full stroke (clipped to 0..1)."""
    return float(np.clip(width_m / max_width_m, 0.0, 1.0))


def arm_state(station: Station, arm: str) -> np.ndarray:
    """Return the arm's state: joint1..joint6 in radians, then the gripper 0..1 (float32)."""
    state = station.joint_state(arm)
    gripper = normalised_gripper(state.gripper_width_m,
                                 station.joint_limits(arm).gripper_max_width_m)
    return np.append(np.asarray(state.positions_rad, dtype=np.float32),
                     np.float32(gripper)).astype(np.float32)


def build_observation(station: Station, arm: str, instruction: str, config: VlaConfig,
                      capture: Capture | None = None) -> dict:
    """
    Build one policy observation from what the station gives now.

    :param station: the hardware boundary.
    :param arm: the acting arm; its wrist camera is ``'<arm>_wrist'``.
    :param instruction: the text sent as the prompt.
    :param config: keys, image size and layout.
    :param capture: how frames are captured (default ``station.capture``; the library passes
        its own so captured frames are recorded).
    :returns: the observation map.
    """
    grab = station.capture if capture is None else capture
    observation: dict = {}
    for key, camera in ((config.head_image_key, 'head'),
                        (config.wrist_image_key, f'{arm}_wrist')):
        if key:
            image = resize_with_pad(grab(camera).rgb, config.image_height_px,
                                    config.image_width_px)
            observation[key] = np.ascontiguousarray(
                image.transpose(2, 0, 1) if config.channels_first else image)
    observation[config.state_key] = arm_state(station, arm)
    observation[config.prompt_key] = instruction
    return observation

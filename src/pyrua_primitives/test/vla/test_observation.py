"""Observation pieces: resize with padding and the normalised gripper."""

import numpy as np
from pyrua_primitives.vla.observation import normalised_gripper, resize_with_pad
import pytest


def test_resize_with_pad_keeps_the_aspect_and_pads_black():
    image = np.full((480, 640, 3), 200, np.uint8)
    out = resize_with_pad(image, 224, 224)
    assert out.shape == (224, 224, 3) and out.dtype == np.uint8
    # 640x480 scales to 224x168: 28 black rows above and below.
    assert np.all(out[:28] == 0) and np.all(out[-28:] == 0)
    assert np.all(out[28:196] == 200)


def test_resize_with_pad_refuses_a_non_rgb_image():
    with pytest.raises(ValueError, match='vs H x W x 3 uint8'):
        resize_with_pad(np.zeros((10, 10), np.uint8), 8, 8)


def test_gripper_is_a_fraction_of_the_stroke():
    assert normalised_gripper(0.044, 0.088) == pytest.approx(0.5)
    assert normalised_gripper(0.0885, 0.088) == 1.0

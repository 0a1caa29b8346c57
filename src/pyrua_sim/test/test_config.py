"""StationConfig validates every field, naming it, its value and its bound."""

import dataclasses

from pyrua_sim.config import StationConfig
from pyrua_sim.errors import ConfigError
import pytest


def test_defaults_render_640x480_rgb_only_at_125_hz():
    config = StationConfig()
    assert (config.render_width, config.render_height) == (640, 480)
    assert config.depth_enabled is False
    assert config.control_period_s == pytest.approx(0.008)


@pytest.mark.parametrize(
    ('field', 'value', 'message'),
    [
        ('control_rate_hz', 0.0, 'control_rate_hz=0.0 vs bound > 0'),
        ('gripper_timeout_s', float('nan'), 'gripper_timeout_s=nan vs bound > 0'),
        ('render_width', 640.5, 'render_width=640.5 vs an int in 1..4096'),
        ('render_height', 5000, 'render_height=5000 vs an int in 1..4096'),
    ],
)
def test_bad_values_are_refused(field, value, message):
    with pytest.raises(ConfigError, match=message):
        StationConfig(**{field: value})


def test_config_is_frozen_and_keyword_only():
    config = StationConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.render_width = 320
    with pytest.raises(TypeError):
        StationConfig(125.0)

"""The nodes refuse rclpy releases with the known action defects, with the way out."""

from pyrua_primitives.ros.rclpy_version import (
    installed_rclpy_version,
    parse_version,
    rclpy_problem,
    require_supported_rclpy,
)
import pytest


@pytest.mark.parametrize('version, defect', [
    ('7.1.5', 'goal response sent from a non-executor thread can be lost'),
    ('7.1.8', 'sends a None result'),
    ('7.1.9', 'sends a None result'),
    ('7.1.7', 'older than the tested minimum'),
])
def test_affected_releases_are_refused_naming_the_defect_and_the_fix(version, defect):
    with pytest.raises(RuntimeError, match=f'rclpy {version} vs minimum 7.1.10: .*{defect}'):
        require_supported_rclpy(version)
    assert 'apt-get install --only-upgrade ros-jazzy-rclpy' in rclpy_problem(version)


@pytest.mark.parametrize('version', ['7.1.10', '7.1.12', '9.0.0'])
def test_fixed_releases_start(version):
    require_supported_rclpy(version)
    assert rclpy_problem(version) == ''


def test_versions_are_parsed_or_refused():
    assert parse_version('7.1.10') == (7, 1, 10)
    with pytest.raises(ValueError, match="rclpy version 'jazzy' vs major.minor.patch"):
        parse_version('jazzy')


def test_the_installed_version_is_read_from_an_ament_prefix(tmp_path, monkeypatch):
    share = tmp_path / 'share' / 'rclpy'
    share.mkdir(parents=True)
    (share / 'package.xml').write_text('<package><name>rclpy</name><version>7.1.9</version>'
                                       '</package>')
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path))
    assert installed_rclpy_version() == '7.1.9'
    with pytest.raises(RuntimeError, match='rclpy 7.1.9 vs minimum 7.1.10'):
        require_supported_rclpy()

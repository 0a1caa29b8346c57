"""
The rclpy releases the nodes refuse, checked before ``rclpy.init`` (ROS-free).

Two known rclpy defects break our action servers and clients: before 7.1.6 a goal response
sent from a non-executor thread can be lost, and 7.1.8-7.1.9 (Jazzy syncs of early 2026)
send a ``None`` result when a server calls ``succeed()``/``abort()`` and then returns the
result under a MultiThreadedExecutor. Both are fixed from 7.1.10 on; every node calls
``require_supported_rclpy()`` first, and the Docker image fails its build on an older one.
"""

from __future__ import annotations

from importlib import metadata
import os
from pathlib import Path
import re

MIN_RCLPY = (7, 1, 10)
"""The first rclpy release without the defects above."""
KNOWN_DEFECTS = (
    ((0, 0, 0), (7, 1, 6), 'a goal response sent from a non-executor thread can be lost'),
    ((7, 1, 8), (7, 1, 10), 'an action server that calls succeed()/abort() under a '
                            'MultiThreadedExecutor sends a None result'),
)
"""(first affected, first fixed, what breaks)."""


def parse_version(text: str) -> tuple[int, int, int]:
    """
    Return (major, minor, patch) of a version string such as ``'7.1.9'``.

    :raises ValueError: for a string without three numbers.
    """
    match = re.match(r'^\s*(\d+)\.(\d+)\.(\d+)', text)
    if match is None:
        raise ValueError(f'rclpy version {text!r} vs major.minor.patch, e.g. 7.1.10')
    return tuple(int(g) for g in match.groups())


def rclpy_problem(version: str) -> str:
    """Return why ``version`` of rclpy cannot run the nodes, or '' when it can."""
    found = parse_version(version)
    if found >= MIN_RCLPY:
        return ''
    broken = [what for first, fixed, what in KNOWN_DEFECTS if first <= found < fixed]
    minimum = '.'.join(map(str, MIN_RCLPY))
    why = '; '.join(broken) or 'older than the tested minimum'
    return (f'rclpy {version} vs minimum {minimum}: {why}. Update ROS 2 '
            '(`sudo apt-get update && sudo apt-get install --only-upgrade ros-jazzy-rclpy`) '
            'or rebuild the image (docker/Dockerfile)')


def installed_rclpy_version() -> str | None:
    """Return the installed rclpy version (package metadata, else its package.xml), or None."""
    try:
        return metadata.version('rclpy')
    except metadata.PackageNotFoundError:
        pass
    for prefix in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep):
        package_xml = Path(prefix) / 'share' / 'rclpy' / 'package.xml' if prefix else None
        if package_xml is not None and package_xml.is_file():
            match = re.search(r'<version>([^<]+)</version>', package_xml.read_text())
            if match:
                return match.group(1).strip()
    return None


def require_supported_rclpy(version: str | None = None) -> None:
    """
    Refuse to start on an rclpy release with the defects above.

    :param version: the version to check (default: the installed one; unknown passes).
    :raises RuntimeError: saying which defect and how to update.
    """
    version = installed_rclpy_version() if version is None else version
    if version is None:
        return
    problem = rclpy_problem(version)
    if problem:
        raise RuntimeError(problem)

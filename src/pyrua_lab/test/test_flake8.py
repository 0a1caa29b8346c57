# Copyright 2017 Open Source Robotics Foundation, Inc.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""ament_flake8 over this package (colcon test), with the workspace's .flake8 settings."""

from pathlib import Path

import pytest

ament_flake8 = pytest.importorskip(
    'ament_flake8.main', reason='ament_flake8 comes with ROS 2; tests/test_workspace.py runs '
    'the same check with flake8 from PyPI')

CONFIG = Path(__file__).resolve().parents[3] / '.flake8'


@pytest.mark.flake8
@pytest.mark.linter
def test_flake8():
    argv = ['--config', str(CONFIG)] if CONFIG.is_file() else []
    rc, errors = ament_flake8.main_with_errors(argv=argv)
    assert rc == 0, \
        'Found %d code style errors / warnings:\n' % len(errors) + \
        '\n'.join(errors)

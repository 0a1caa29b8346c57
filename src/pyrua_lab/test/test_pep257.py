# Copyright 2015 Open Source Robotics Foundation, Inc.
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
"""ament_pep257 over this package (colcon test)."""

import pytest

ament_pep257 = pytest.importorskip(
    'ament_pep257.main', reason='ament_pep257 comes with ROS 2; tests/test_workspace.py runs '
    'the same check with pydocstyle from PyPI')


@pytest.mark.linter
@pytest.mark.pep257
def test_pep257():
    rc = ament_pep257.main(argv=['.', 'test'])
    assert rc == 0, 'Found code style errors / warnings'

#!/bin/bash
# Source ROS 2 Jazzy and the workspace overlay, then run the container's command.
set -e
source /opt/ros/jazzy/setup.bash
source /ws/install/setup.bash
exec "$@"

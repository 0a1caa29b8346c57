# Reference program for `place_on_marker`: put the named block on the named cross marker,
# centred within 1 cm. Measure both closely, place, measure the result and correct it.

# %% [include] _look_and_grasp.py

# %% Read the task, find both objects and choose the arm that reaches both
import re

block_name, marker_name = re.search(r'the (\w+ block) on the (\w+ marker)', instruction).groups()
block = robo.locate(block_name)
marker = robo.locate(marker_name)
arm = choose_arm(block, marker)

# %% Measure the marker's centre closely (1 cm tolerance), then place; check and correct
marker = look(marker_name, arm, flat_size=0.06)
print(marker)
place_centred(block_name, arm, marker.position_m[:2], TABLE_Z + 0.02 + 0.008, 0.005)
robo.show('head', note='block on the marker')

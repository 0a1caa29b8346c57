# Reference program for `pick_place`: put the named block in the named bowl.
# Written the way a careful model would work: measure, act, check every result, retry.

# %% [include] _look_and_grasp.py

# %% Read the task, find both objects and choose the arm that reaches both
import re

block_name, bowl_name = re.search(r'the (\w+ block) in the (\w+ bowl)', instruction).groups()
block = robo.locate(block_name)
bowl = robo.locate(bowl_name, cameras=['head'])  # rough: enough to choose the arm
arm = choose_arm(block, bowl)

# %% Measure the bowl with the wrist camera, then grasp the block
bowl = look(bowl_name, arm)
print(bowl)
held = grasp(block_name, arm)
print('holding the block' if held else 'could not grasp the block')

# %% Lower the block into the bowl and release it
bx, by, _ = bowl.position_m
print(robo.move_to(arm, [bx, by, HOVER_Z]))
print(robo.move_to(arm, [bx, by, TABLE_Z + 0.05], descend=True))
print(robo.open_gripper(arm))
print(robo.move_to(arm, [bx, by, HOVER_Z]))

# %% Verify with a fresh look; retry once if the block is not in the bowl
check = robo.locate(block_name)
print(check)
off = math.hypot(check.position_m[0] - bx, check.position_m[1] - by) if check.found else 1.0
print(f'block is {off * 1000:.0f} mm from the bowl centre')
if off > 0.035 and grasp(block_name, arm):
    print(robo.move_to(arm, [bx, by, HOVER_Z]))
    print(robo.move_to(arm, [bx, by, TABLE_Z + 0.05], descend=True))
    print(robo.open_gripper(arm))
    print(robo.move_to(arm, [bx, by, HOVER_Z]))
robo.show('head', note='after placing')

# Reference program for `lift_object`: lift the named block 10 cm and keep holding it.
# Grasp it the careful way, lift with a tilted approach allowed, then check the height.

# %% [include] _look_and_grasp.py

# %% Read the task and choose the arm on the block's side
import re

block_name = re.search(r'the (\w+ block)', instruction).group(1)
block = robo.locate(block_name)
arm = choose_arm(block)

# %% Grasp the block, then lift it 10 cm (above straight-down reach: allow a tilt)
start = grasp(block_name, arm)
x, y, z = start.position_m if start else (None,) * 3
assert x is not None, 'the block was not grasped'
z = TABLE_Z + 0.02 if z is None else z
bx, by = BASES[arm]
for pull in (0.0, 0.03, 0.06, 0.09):  # if needed, lift a little nearer the arm's base
    d = math.hypot(x - bx, y - by)
    k = max(d - pull, 0.15) / d
    up = robo.move_to(arm, [bx + (x - bx) * k, by + (y - by) * k, TABLE_Z + 0.15], max_tilt=0.6)
    print(up)
    if up.reached:
        break

# %% Check the grasp still holds and the block is high enough; hold it there
grip = robo.pose(arm)
print(grip)
print(f'block raised about {(grip.position_m[2] - 0.005 - z) * 1000:.0f} mm')
if grip.position_m[2] < TABLE_Z + 0.13:
    print(robo.move_to(arm, [*grip.position_m[:2], TABLE_Z + 0.16], max_tilt=0.8))
robo.show(f'{arm}_wrist', note='holding the block up')

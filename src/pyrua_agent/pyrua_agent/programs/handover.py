# Reference program for `handover`: only the left arm reaches the block and only the right
# arm reaches the bowl, so the left arm sets the block down in the middle, where both reach,
# and the right arm picks it up there and drops it in the bowl.

# %% [include] _measure_and_grasp.py

# %% Read the task
import re

block_name, bowl_name = re.search(r'the (\w+ block) in the (\w+ bowl)', instruction).groups()
MIDDLE = (0.0, -0.29)  # about 0.34 m from both arm bases

# %% Left arm: measure the block, pick it up and set it down in the middle
print(robo.home('right'))
block = measure(block_name, 'left')
assert block.found, block.reason
assert grasp(block_name, 'left', block), 'left arm could not pick the block up'
put_down('left', MIDDLE)
print(robo.home('left'))

# %% Right arm: measure the bowl, pick the block up in the middle, drop it in the bowl
# Far out on the right, the head camera alone may not make out the bowl; look again with the
# right arm at a couple of places (it hides different parts of the view), then measure.
for look in (None, (0.40, -0.20), (0.30, -0.25)):
    if look is not None:
        print(robo.move_to('right', [*look, HOVER_Z]))
    bowl = robo.locate(bowl_name)
    print(bowl)
    if bowl.found:
        break
bowl = measure(bowl_name, 'right', bowl)
assert bowl.found, bowl.reason
middle = measure(block_name, 'right')
assert middle.found, middle.reason
assert grasp(block_name, 'right', middle), 'right arm could not pick the block up'
bx, by, _ = bowl.position_m
carry_over('right', (bx, by))
print(robo.open_gripper('right'))
print(robo.move_to('right', [bx, by, HOVER_Z]))

# %% Verify with a fresh look
check = robo.locate(block_name)
print(check)
if check.found:
    print(f'block is {math.hypot(check.position_m[0] - bx, check.position_m[1] - by) * 1000:.0f}'
          ' mm from the bowl centre')
robo.show('head', note='after the handover')

# Reference program for `pick_place`: put the named block in the named bowl.
# Written the way a careful model would work: measure, act, check every result, retry.

# %% Read the task and find both objects
import re

block_name, bowl_name = re.search(r'the (\w+ block) in the (\w+ bowl)', instruction).groups()
TABLE_Z = 0.765
HOVER_Z = TABLE_Z + 0.08  # straight-down moves reach this height over most of the table
block = robo.locate(block_name)
bowl = robo.locate(bowl_name)
print(block)
print(bowl)

# %% Choose the arm on the block's side; measure the block's height with its wrist camera
x, y, _ = block.position_m
arm = 'left' if x < 0 else 'right'
if not block.found or math.isnan(block.height_m):
    print(robo.move_to(arm, [x, y, HOVER_Z]))
    block = robo.locate(block_name, cameras=['head', f'{arm}_wrist'])
    print(block)
assert block.found, block.reason


# %% Grasp: hover, descend onto the block, close, and check the grasp width
def grasp(obj, arm):
    x, y, z = obj.position_m
    robo.open_gripper(arm)
    print(robo.move_to(arm, [x, y, HOVER_Z], heading=obj.heading_rad))
    print(robo.move_to(arm, [x, y, z + 0.005], heading=obj.heading_rad, descend=True))
    grip = robo.close_gripper(arm)
    print(grip)
    print(robo.move_to(arm, [x, y, HOVER_Z]))
    return grip.held


for attempt in range(3):
    if grasp(block, arm):
        break
    robo.show(f'{arm}_wrist', note='grasp missed; looking again')
    block = robo.locate(block_name)
    print('retry', attempt + 1, block)

# %% Carry the block over the bowl and release it
bx, by, _ = bowl.position_m
carry = robo.move_to(arm, [bx, by, HOVER_Z + 0.01])
print(carry)
if not carry.reached:
    # The bowl is on the other arm's side: put the block down between the arms and switch.
    print(robo.move_to(arm, [0.0, by, HOVER_Z]))
print(robo.open_gripper(arm))
print(robo.move_to(arm, [bx, by, HOVER_Z + 0.01]))

# %% Verify with a fresh look
check = robo.locate(block_name)
print(check)
if check.found:
    dx, dy = check.position_m[0] - bx, check.position_m[1] - by
    print(f'block is {math.hypot(dx, dy) * 1000:.0f} mm from the bowl centre')
robo.show('head', note='after placing')

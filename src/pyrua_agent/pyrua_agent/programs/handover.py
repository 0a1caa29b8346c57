# Reference program for `handover`: only the left arm reaches the block and only the right
# arm reaches the bowl, so the left arm sets the block down in the middle, where both reach,
# and the right arm picks it up there and drops it in the bowl.

# %% Read the task, define helpers, find both objects
import re

block_name, bowl_name = re.search(r'the (\w+ block) in the (\w+ bowl)', instruction).groups()
TABLE_Z = 0.765
HOVER_Z = TABLE_Z + 0.08
MIDDLE = (0.0, -0.29)  # about 0.34 m from both arm bases
block = robo.locate(block_name)
bowl = robo.locate(bowl_name)
print(block)
print(bowl)


def measure(name, arm, rough):
    """Hover the arm over (then 5 cm beyond) a rough position and look with head + wrist."""
    x, y, _ = rough.position_m
    for dy in (0.0, 0.05):
        print(robo.move_to(arm, [x, y + dy, HOVER_Z]))
        fine = robo.locate(name, cameras=['head', f'{arm}_wrist'])
        print(fine)
        if fine.found and math.isfinite(fine.height_m):
            return fine
    return rough


def grasp(name, arm, obj):
    """Grasp a block, retrying with a fresh look; return whether it is held."""
    for attempt in range(3):
        x, y, z = obj.position_m
        z = z if math.isfinite(z) else TABLE_Z + 0.02
        print(robo.open_gripper(arm))
        print(robo.move_to(arm, [x, y, HOVER_Z], heading=obj.heading_rad))
        print(robo.move_to(arm, [x, y, z + 0.005], heading=obj.heading_rad, descend=True))
        grip = robo.close_gripper(arm)
        print(grip)
        print(robo.move_to(arm, [x, y, HOVER_Z]))
        if grip.held:
            return True
        robo.show(f'{arm}_wrist', note=f'grasp {attempt + 1} missed; looking again')
        obj = measure(name, arm, robo.locate(name))
    return False


# %% Left arm: pick the block up and set it down in the middle
assert block.found and bowl.found, (block.reason, bowl.reason)
print(robo.home('right'))
block = measure(block_name, 'left', block)
assert grasp(block_name, 'left', block), 'left arm could not pick the block up'
print(robo.move_to('left', [*MIDDLE, HOVER_Z]))
print(robo.move_to('left', [*MIDDLE, TABLE_Z + 0.027], descend=True))
print(robo.open_gripper('left'))
print(robo.move_to('left', [*MIDDLE, HOVER_Z]))
print(robo.home('left'))

# %% Right arm: pick it up in the middle, carry it over the bowl and release it
middle = robo.locate(block_name)
print(middle)
middle = measure(block_name, 'right', middle)
assert grasp(block_name, 'right', middle), 'right arm could not pick the block up'
bx, by, _ = bowl.position_m
print(robo.move_to('right', [bx, by, HOVER_Z]))
print(robo.open_gripper('right'))
print(robo.move_to('right', [bx, by, HOVER_Z]))

# %% Verify with a fresh look
check = robo.locate(block_name)
print(check)
if check.found:
    print(f'block is {math.hypot(check.position_m[0] - bx, check.position_m[1] - by) * 1000:.0f}'
          ' mm from the bowl centre')
robo.show('head', note='after the handover')

# Reference program for `handover`: only the left arm reaches the block and only the right
# arm reaches the bowl, so the left arm sets the block down in the middle, where both reach,
# and the right arm picks it up there and drops it in the bowl.

# %% Read the task and define helpers
import re

block_name, bowl_name = re.search(r'the (\w+ block) in the (\w+ bowl)', instruction).groups()
MIDDLE = (0.0, -0.29)  # about 0.34 m from both arm bases
TABLE_Z = 0.765
HOVER_Z = TABLE_Z + 0.08  # straight-down moves reach this height over most of the table
BASES = {'left': (-0.30, -0.45), 'right': (0.30, -0.45)}


def dist(arm, xy):
    return math.hypot(xy[0] - BASES[arm][0], xy[1] - BASES[arm][1])


def measure(name, arm, rough=None):
    """Look from above the rough position (else 5 cm aside) with the head and that wrist."""
    rough = robo.locate(name) if rough is None else rough
    if not rough.found:  # maybe hidden by an arm, or too far out for the head alone
        print(rough, '; moving the arm home and looking again')
        robo.home(arm)
        rough = robo.locate(name)
        if not rough.found:
            rough = robo.locate(name, cameras=[f'{arm}_wrist'])
        if not rough.found:
            return rough
    x, y, _ = rough.position_m
    for dx, dy in ((0, 0), (0, 0.05), (0.05, 0), (-0.05, 0)):
        if not robo.move_to(arm, [x + dx, y + dy, HOVER_Z]).reached:
            continue
        fine = robo.locate(name, cameras=['head', f'{arm}_wrist'])
        if fine.found and math.isfinite(fine.height_m):
            print(fine)
            return fine
    print('no wrist measurement; using', rough)
    return rough


def grasp(name, arm, obj, width=None):
    """Grasp a block across its sides, check the grasp width, retry with a fresh look."""
    for attempt in range(3):
        x, y, z = obj.position_m
        z = max(z, TABLE_Z + 0.02) if math.isfinite(z) else TABLE_Z + 0.02
        robo.open_gripper(arm, width)
        print(robo.move_to(arm, [x, y, HOVER_Z], heading=obj.heading_rad))
        print(robo.move_to(arm, [x, y, z + 0.005], heading=obj.heading_rad, descend=True))
        grip = robo.close_gripper(arm)
        print(grip)
        ok = grip.held and 0.03 < grip.width_m < 0.05  # a 40 mm block held across two sides
        if grip.held and not ok:
            robo.open_gripper(arm, width)
        print(robo.move_to(arm, [x, y, HOVER_Z]))
        if ok:
            return True
        robo.show(f'{arm}_wrist', note=f'grasp {attempt + 1} missed; looking again')
        again = measure(name, arm)
        obj = again if again.found else obj
    return False


def put_down(arm, xy, z_centre=TABLE_Z + 0.02):
    """Set the held block down with its centre at (xy, z_centre), let go and rise."""
    print(robo.move_to(arm, [*xy, HOVER_Z]))
    print(robo.move_to(arm, [*xy, z_centre + 0.007], descend=True))
    print(robo.open_gripper(arm))
    print(robo.move_to(arm, [*xy, HOVER_Z]))


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

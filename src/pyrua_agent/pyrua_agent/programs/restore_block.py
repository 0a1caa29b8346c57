# Reference program for `restore_block`: put the block in the bowl, then back where it started
# (within 15 mm). Measure and remember the start precisely before touching anything.

# %% Read the task and define helpers
import re

block_name, bowl_name = re.search(r'the (\w+ block) in the (\w+ bowl)', instruction).groups()
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


# %% Choose the arm that reaches both; measure the bowl and remember the block's start
block, bowl = robo.locate(block_name), robo.locate(bowl_name)
print(block)
print(bowl)
assert block.found and bowl.found, (block.reason, bowl.reason)
arm = min(BASES, key=lambda a: max(abs(dist(a, block.position_m) - 0.29),
                                   abs(dist(a, bowl.position_m) - 0.29)))
print(robo.home('right' if arm == 'left' else 'left'))
bowl = measure(bowl_name, arm, bowl)
block = measure(block_name, arm, block)
start = block.position_m[:2]
print(f'{arm} arm; start remembered at ({start[0]:.3f}, {start[1]:.3f}) m')

# %% Put the block in the bowl
assert grasp(block_name, arm, block), 'could not pick the block up'
bx, by, _ = bowl.position_m
print(robo.move_to(arm, [bx, by, HOVER_Z]))
print(robo.open_gripper(arm))
print(robo.move_to(arm, [bx, by, HOVER_Z]))
robo.show('head', note='block dropped in the bowl')

# %% Take it out again (fingers opened only 60 mm to clear the bowl wall)
inside = measure(block_name, arm)
print(f'block is {math.dist(inside.position_m[:2], (bx, by)) * 1000:.0f} mm from the bowl centre')
assert grasp(block_name, arm, inside, width=0.06), 'could not pick the block out of the bowl'

# %% Set it down at its start; measure, and correct it while it is off by more than 6 mm
put_down(arm, start)
for _attempt in range(2):
    check = measure(block_name, arm)
    off = math.dist(check.position_m[:2], start)
    print(f'block is {off * 1000:.0f} mm from its start')
    if off <= 0.006 or not grasp(block_name, arm, check):
        break
    put_down(arm, start)

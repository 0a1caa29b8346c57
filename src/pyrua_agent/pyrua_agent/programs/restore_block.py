# Reference program for `restore_block`: put the block in the bowl, then back where it started
# (within 15 mm). Measure and remember the start precisely before touching anything.

# %% Read the task, define helpers, find both objects
import re

block_name, bowl_name = re.search(r'the (\w+ block) in the (\w+ bowl)', instruction).groups()
TABLE_Z = 0.765
HOVER_Z = TABLE_Z + 0.08
BASES = {'left': (-0.30, -0.45), 'right': (0.30, -0.45)}
block = robo.locate(block_name)
bowl = robo.locate(bowl_name)
print(block)
print(bowl)


def dist(arm, xy):
    return math.hypot(xy[0] - BASES[arm][0], xy[1] - BASES[arm][1])


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


def grasp(name, arm, obj, width=None):
    """Grasp a block (gripper opened to ``width``), retrying with a fresh look."""
    for attempt in range(3):
        x, y, z = obj.position_m
        z = z if math.isfinite(z) else TABLE_Z + 0.02
        print(robo.open_gripper(arm, width))
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


# %% Choose the arm that reaches both; measure and remember the block's start
assert block.found and bowl.found, (block.reason, bowl.reason)
bx, by, _ = bowl.position_m
arm = min(BASES, key=lambda a: max(abs(dist(a, block.position_m) - 0.29),
                                   abs(dist(a, (bx, by)) - 0.29)))
print(robo.home('right' if arm == 'left' else 'left'))
block = measure(block_name, arm, block)
start = block.position_m[:2]
print(f'{arm} arm; start remembered at ({start[0]:.3f}, {start[1]:.3f}) m')

# %% Put the block in the bowl
assert grasp(block_name, arm, block), 'could not pick the block up'
print(robo.move_to(arm, [bx, by, HOVER_Z]))
print(robo.open_gripper(arm))
print(robo.move_to(arm, [bx, by, HOVER_Z]))
robo.show('head', note='block dropped in the bowl')

# %% Take it out again (fingers opened only 60 mm to clear the bowl wall)
inside = measure(block_name, arm, robo.locate(block_name))
d = math.hypot(inside.position_m[0] - bx, inside.position_m[1] - by)
print(f'block is {d * 1000:.0f} mm from the bowl centre')
assert grasp(block_name, arm, inside, width=0.06), 'could not pick the block out of the bowl'

# %% Set it down exactly at its start and release
print(robo.move_to(arm, [*start, HOVER_Z]))
print(robo.move_to(arm, [*start, TABLE_Z + 0.027], descend=True))
print(robo.open_gripper(arm))
print(robo.move_to(arm, [*start, HOVER_Z]))
check = robo.locate(block_name)
print(check, f'{math.dist(check.position_m[:2], start) * 1000:.0f} mm from the start')

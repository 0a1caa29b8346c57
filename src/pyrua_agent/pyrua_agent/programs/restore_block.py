# Reference program for `restore_block`: put the block in the bowl, then back where it started
# (within 15 mm). Measure and remember the start precisely before touching anything.

# %% [include] _measure_and_grasp.py

# %% Read the task
import re

block_name, bowl_name = re.search(r'the (\w+ block) in the (\w+ bowl)', instruction).groups()

# %% Choose the arm that reaches both; measure the bowl and remember the block's start
block, bowl = locate_all(block_name, bowl_name)
arm = arm_for(block.position_m, bowl.position_m)
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

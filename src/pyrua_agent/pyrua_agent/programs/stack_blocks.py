# Reference program for `stack_blocks`: put the named block on the other one, centred
# within 1.5 cm. Measure the lower block closely, stack, measure the result and correct it.

# %% [include] _look_and_grasp.py

# %% Read the task, find both blocks and choose the arm that reaches both
import re

upper_name, lower_name = re.search(r'the (\w+ block) on the (\w+ block)', instruction).groups()
upper = robo.locate(upper_name)
lower = robo.locate(lower_name)
arm = choose_arm(upper, lower)

# %% Measure the lower block closely (1.5 cm tolerance), stack, check and correct
lower = look(lower_name, arm)
print(lower)
lx, ly, lz = lower.position_m
lz = TABLE_Z + 0.02 if lz is None else lz
place_centred(upper_name, arm, (lx, ly), lz + 0.04 + 0.007, 0.008, min_z=lz + 0.03)
robo.show('head', note='the stack')

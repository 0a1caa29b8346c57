# Reference program for libero_object: generic pick-and-place steps read from the instruction
# (other kinds of instruction are reported as not handled).
# Needs --perception oracle or rgbd (objects by the benchmark's names).

# %% [include] _libero.py

# %% Solve the instruction
print(instruction)
print(f'steps done: {solve(instruction)}')

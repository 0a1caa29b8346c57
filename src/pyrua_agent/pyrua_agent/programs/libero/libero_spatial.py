# Reference program for LIBERO-Spatial: 'pick up the black bowl <where> and place it on the
# plate'. The bowl is told apart from the other one by the relation in the instruction.
# Needs --perception oracle or rgbd (objects by the benchmark's names).

# %% [include] _libero.py

# %% Solve the instruction
print(instruction)
print(f'steps done: {solve(instruction)}')

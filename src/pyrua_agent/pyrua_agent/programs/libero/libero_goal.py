# Reference program for libero_goal: the instruction read as steps of known kinds (open a
# drawer, turn on the stove, push, put on/in/on top of/beside), each kind one generic action.
# Needs --perception oracle or rgbd (objects by the benchmark's names).

# %% [include] _kinds.py
# %% [include] _libero.py
# %% [include] _actions.py
# %% [include] _steps.py

# %% Solve the instruction
print(instruction)
print(f'steps done: {solve_steps(instruction)}')

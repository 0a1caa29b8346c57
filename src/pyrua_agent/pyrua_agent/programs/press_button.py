# Reference program for `press_button`: press the named button (and no other) at least 5 mm.
# The cap stands 15 mm proud of a 30 mm base and travels 12 mm: push the closed fingers
# straight down onto the cap's centre, check the stroke, back off.

# %% [include] _reach.py

# %% Read the task and find the button
import re

button_name = re.search(r'Press the (\w+ button)', instruction).group(1)
button = robo.locate(button_name)
print(button)
assert button.found, button.reason


# %% Choose the arm closest to the middle of its reach and measure the cap with its wrist
x, y, _ = button.position_m
arm = min(BASES, key=lambda a: abs(dist(a, (x, y)) - 0.28))
other = 'right' if arm == 'left' else 'left'
print(arm, f'{dist(arm, (x, y)):.3f} m from its base')
print(robo.home(other))
print(robo.move_to(arm, [x, y, HOVER_Z]))
fine = robo.locate(button_name, cameras=['head', f'{arm}_wrist'])
print(fine)
if fine.found:
    button = fine
x, y, _ = button.position_m
# The cap top rests 45 mm above the table; a measured top can read a few mm high.
measured = button.top_z_m  # None when no wrist view measured it
top = TABLE_Z + 0.045 if measured is None else min(measured, TABLE_Z + 0.045)
print(f'cap top at {top:.3f} m (measured {measured} m)')

# %% Press: closed fingers onto the cap centre, 10 mm into its 12 mm stroke, then back off
print(robo.close_gripper(arm))
for depth in (0.010, 0.0115):  # a second, deeper press in case the first fell short
    print(robo.move_to(arm, [x, y, top + 0.03]))
    push = robo.move_to(arm, [x, y, top + TIPS_M - depth], descend=True)
    print(push)
    reached_z = push.final_m[2] - TIPS_M  # finger tips
    print(f'finger tips at {reached_z:.3f} m, {(top - reached_z) * 1000:.1f} mm below the cap top')
    print(robo.move_to(arm, [x, y, top + 0.03]))
robo.show('head', note='after pressing')

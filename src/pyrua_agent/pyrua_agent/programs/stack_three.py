# Reference program for `stack_three`: stack three blocks in the named order with one arm.
# The third block must be carried over a two-block stack (top 80 mm up), which straight-down
# moves reach only 0.24-0.32 m from the arm base: build the stack there.

# %% [include] _measure_and_grasp.py

# %% Read the task and define helpers
import re

names = re.search(r'the (\w+ block) at the bottom, the (\w+ block) in the middle and the '
                  r'(\w+ block) on top', instruction).groups()
print(names)

HIGH_Z = TABLE_Z + 0.115  # carries a block clear over a two-block stack


def move_high(arm, xy):
    """Move at HIGH_Z (tilting up to 0.6 rad where needed; a joint move if no line works)."""
    moved = robo.move_to(arm, [*xy, HIGH_Z], max_tilt=0.6)
    if not moved.reached:
        moved = robo.move_to(arm, [*xy, HIGH_Z], max_tilt=0.6, path='joint')
    print(moved)
    return moved.reached


# %% Choose the arm that reaches all three; measure them
seen = locate_all(*names)
arm = arm_for(*(s.position_m for s in seen))
print(robo.home('right' if arm == 'left' else 'left'))
bottom, middle, top = (measure(n, arm, s) for n, s in zip(names, seen, strict=True))
base_xy = bottom.position_m[:2]
print(f'{arm} arm; bottom block {dist(arm, base_xy):.3f} m from its base')

# %% Move the bottom block where the arm reaches high enough, if it is not there already
if not 0.24 <= dist(arm, base_xy) <= 0.32:
    base_xy = free_spot(arm, [middle.position_m[:2], top.position_m[:2]], (0.28, 0.26, 0.30))
    print('moving the bottom block to', base_xy)
    assert grasp(names[0], arm, bottom), 'could not pick up the bottom block'
    put_down(arm, base_xy)
    base_xy = measure(names[0], arm).position_m[:2]

# %% Middle block onto the bottom one
assert grasp(names[1], arm, middle), 'could not pick up the middle block'
put_down(arm, base_xy, TABLE_Z + 0.06)
robo.show(f'{arm}_wrist', note='two blocks stacked')
# The open fingers reach 20 mm below HOVER_Z: rise clear of the stack before leaving it.
move_high(arm, base_xy)
move_high(arm, top.position_m[:2])

# %% Top block: lift it high, carry it over the stack, lower it on and let go
assert grasp(names[2], arm, measure(names[2], arm, top)), 'could not pick up the top block'
px, py, _ = robo.pose(arm).position_m
move_high(arm, (px, py))
assert move_high(arm, base_xy), 'could not carry the top block over the stack'
print(robo.move_to(arm, [*base_xy, TABLE_Z + 0.107], descend=True))
print(robo.open_gripper(arm))
move_high(arm, base_xy)
robo.show('head', note='after stacking')

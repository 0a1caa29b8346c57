# Reference program for `stack_three`: stack three blocks in the named order with one arm.
# The third block must be carried over a two-block stack (top 80 mm up), which straight-down
# moves reach only 0.24-0.32 m from the arm base: build the stack there.

# %% Read the task and define helpers
import re

names = re.search(r'the (\w+ block) at the bottom, the (\w+ block) in the middle and the '
                  r'(\w+ block) on top', instruction).groups()
print(names)
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


HIGH_Z = TABLE_Z + 0.115  # carries a block clear over a two-block stack


def move_high(arm, xy):
    """Move at HIGH_Z (tilting up to 0.6 rad where needed; a joint move if no line works)."""
    moved = robo.move_to(arm, [*xy, HIGH_Z], max_tilt=0.6)
    if not moved.reached:
        moved = robo.move_to(arm, [*xy, HIGH_Z], max_tilt=0.6, path='joint')
    print(moved)
    return moved.reached


def free_spot(arm, avoid):
    """Return a spot 0.28 m from the arm base, 9 cm or more from every point in avoid."""
    bx, by = BASES[arm]
    for d in (0.28, 0.26, 0.30):
        for deg in range(30, 151, 10):
            x, y = bx + d * math.cos(math.radians(deg)), by + d * math.sin(math.radians(deg))
            if -0.42 < x < 0.42 and -0.28 < y < 0.03 and \
                    all(math.dist((x, y), p) >= 0.09 for p in avoid):
                return (x, y)
    raise RuntimeError('no free spot found')


# %% Choose the arm that reaches all three; measure them
seen = [robo.locate(n) for n in names]
print(*seen, sep='\n')
assert all(s.found for s in seen), [s.reason for s in seen]
arm = min(BASES, key=lambda k: max(abs(dist(k, s.position_m) - 0.29) for s in seen))
print(robo.home('right' if arm == 'left' else 'left'))
bottom, middle, top = (measure(n, arm, s) for n, s in zip(names, seen, strict=True))
base_xy = bottom.position_m[:2]
print(f'{arm} arm; bottom block {dist(arm, base_xy):.3f} m from its base')

# %% Move the bottom block where the arm reaches high enough, if it is not there already
if not 0.24 <= dist(arm, base_xy) <= 0.32:
    base_xy = free_spot(arm, [middle.position_m[:2], top.position_m[:2]])
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

# Reference program for `swap_blocks`: exchange two blocks' positions (each within 20 mm of the
# other's start). Remember both starts precisely, park one block on a free spot, then swap.

# %% Read the task and define helpers
import re

a_name, b_name = re.search(r'of the (\w+ block) and the (\w+ block)', instruction).groups()
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


def find_near(name, xy):
    """Return (query, result) for the object called name nearest xy, using qualifiers."""
    seen = [(f'{q}{name}', robo.locate(f'{q}{name}'))
            for q in ('', 'leftmost ', 'rightmost ', 'nearest ')]
    seen = [(q, r) for q, r in seen if r.found]
    if not seen:
        return name, robo.locate(name)
    return min(seen, key=lambda qr: math.dist(qr[1].position_m[:2], xy))


def free_spot(arm, avoid):
    """Return a table spot that the arm reaches well, 9 cm or more from every point in avoid."""
    bx, by = BASES[arm]
    for d in (0.28, 0.25, 0.31, 0.22, 0.34):
        for deg in range(30, 151, 10):
            x, y = bx + d * math.cos(math.radians(deg)), by + d * math.sin(math.radians(deg))
            if -0.42 < x < 0.42 and -0.28 < y < 0.03 and \
                    all(math.dist((x, y), p) >= 0.09 for p in avoid):
                return (x, y)
    raise RuntimeError('no free spot found')


# %% Choose the arm that reaches both blocks; measure and remember both starts
a, b = robo.locate(a_name), robo.locate(b_name)
print(a)
print(b)
assert a.found and b.found, (a.reason, b.reason)
arm = min(BASES, key=lambda k: max(abs(dist(k, a.position_m) - 0.29),
                                   abs(dist(k, b.position_m) - 0.29)))
print(robo.home('right' if arm == 'left' else 'left'))
a, b = measure(a_name, arm, a), measure(b_name, arm, b)
start_a, start_b = a.position_m[:2], b.position_m[:2]
park = free_spot(arm, [start_a, start_b])
print(f'{arm} arm; starts {a_name} ({start_a[0]:.3f}, {start_a[1]:.3f}), {b_name} '
      f'({start_b[0]:.3f}, {start_b[1]:.3f}); parking at ({park[0]:.3f}, {park[1]:.3f}) m')

# %% Park the first block, move the second to the first's start, then the first to the second's
assert grasp(a_name, arm, a), f'could not pick up the {a_name}'
put_down(arm, park)
assert grasp(b_name, arm, b), f'could not pick up the {b_name}'
put_down(arm, start_a)
robo.home(arm)
query, parked = find_near(a_name, park)
assert grasp(query, arm, measure(query, arm, parked)), f'could not pick up the {a_name} again'
put_down(arm, start_b)

# %% Check both with a measurement; re-place a block that is more than 8 mm off
for name, goal in ((a_name, start_b), (b_name, start_a)) * 2:
    robo.home(arm)
    query, seen = find_near(name, goal)
    seen = measure(query, arm, seen)
    if not seen.found:
        continue
    off = math.dist(seen.position_m[:2], goal)
    print(f'{name} is {off * 1000:.0f} mm from its goal')
    if off > 0.008 and grasp(query, arm, seen):
        put_down(arm, goal)
robo.show('head', note='after swapping')

# Reference program for `sort_by_color`: four blocks (two colours, two each) into the bowls of
# their colour. Two blocks share a name, so ask for the leftmost one; a block in a bowl of its
# own colour merges with the bowl and is no longer found as a block.

# %% Read the task and define helpers
import re

pairs = re.findall(r'the (\w+) blocks in the (\w+ bowl)', instruction)
print(pairs)
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


def arm_for(*points):
    """Return the arm that reaches all points best (nearest the middle of its reach)."""
    def worst(arm):
        return max(abs(dist(arm, p) - 0.28) for p in points)
    return min(BASES, key=worst)


def find_bowl(name):
    """Return (query, result) for a bowl: with blocks of its colour around, keep the widest."""
    seen = [(f'{q}{name}', robo.locate(f'{q}{name}'))
            for q in ('', 'leftmost ', 'rightmost ', 'nearest ')]
    seen = [(q, r) for q, r in seen if r.found]
    return max(seen, key=lambda qr: min(qr[1].size_m)) if seen else (name, robo.locate(name))


def bowl_centre(bowl):
    """
    Return a bowl's centre (x, y).

    Without a measured height the head's footprint is an upper bound grown away from the
    camera by the 40 mm walls: shift its centre back toward the camera by half the excess.
    """
    x, y, _ = bowl.position_m
    if math.isfinite(bowl.height_m):
        return (x, y)
    cx, cy, _ = robo.camera_meta('head').position_m
    shift = max(min(bowl.size_m) - 0.13, 0.0) / 2
    norm = math.hypot(cx - x, cy - y)
    return (x + (cx - x) / norm * shift, y + (cy - y) / norm * shift)


# %% Measure both bowls
bowls = {}
for colour, bowl_name in pairs:
    robo.home('left')  # arms hovering over the table hide things from the head camera
    robo.home('right')
    query, rough = find_bowl(bowl_name)
    print(rough)
    assert rough.found, rough.reason
    arm = arm_for(rough.position_m[:2])
    robo.home('right' if arm == 'left' else 'left')
    fine = measure(query, arm, rough)
    bowls[colour] = bowl_centre(fine if fine.found and min(fine.size_m) > 0.1 else rough)
    print(f'{bowl_name} centre at ({bowls[colour][0]:.3f}, {bowls[colour][1]:.3f}) m')

# %% Sort: take the leftmost block of each colour still outside its bowl, until none is left
placed = {colour: 0 for colour, _ in pairs}
first = {}  # colour -> direction of the first block's spot from its bowl centre
for colour, _ in pairs:
    bowl_xy = bowls[colour]
    query = f'leftmost {colour} block'
    for _attempt in range(4):
        block = robo.locate(query)
        if not block.found:
            robo.home('left')
            robo.home('right')
            block = robo.locate(query)
        print(block)
        if not block.found:
            break
        arm = arm_for(block.position_m[:2], bowl_xy)
        robo.home('right' if arm == 'left' else 'left')
        block = measure(query, arm, block)
        if not grasp(query, arm, block):
            continue
        # Two blocks side by side on the floor (a second one dropped on the first would not
        # rest in the bowl): the first 25 mm off the centre across the line to the arm base,
        # the second opposite it (or as near opposite as the arm reaches), fingers closing
        # across the line between the two (clear of the wall and of the other block).
        if colour in first:
            dirs = [first[colour] + math.pi + math.radians(a) for a in (0, 30, -30, 60, -60)]
        else:
            radial = math.atan2(bowl_xy[1] - BASES[arm][1], bowl_xy[0] - BASES[arm][0])
            dirs = [radial + math.pi / 2, radial - math.pi / 2]
        for d in dirs:
            spot = (bowl_xy[0] + 0.025 * math.cos(d), bowl_xy[1] + 0.025 * math.sin(d))
            over = robo.move_to(arm, [*spot, HOVER_Z], heading=d + math.pi / 2)
            if over.reached:
                first.setdefault(colour, d)
                break
        print(over)
        if over.reached:
            print(robo.move_to(arm, [*spot, TABLE_Z + 0.035], descend=True))
        else:  # drop it from above the bowl centre instead
            print(robo.move_to(arm, [*bowl_xy, HOVER_Z]))
        print(robo.open_gripper(arm))
        placed[colour] += 1
        print(robo.move_to(arm, [*spot, HOVER_Z]))
        robo.home(arm)

# %% Check what is left outside the bowls
for colour, _ in pairs:
    print(colour, robo.locate(f'{colour} block'))
robo.show('head', note='after sorting')

# Reference program for `sort_by_color`: four blocks (two colours, two each) into the bowls of
# their colour. Two blocks share a name, so ask for the leftmost one; a block in a bowl of its
# own colour merges with the bowl and is no longer found as a block.

# %% [include] _measure_and_grasp.py

# %% Read the task and define helpers
import re

pairs = re.findall(r'the (\w+) blocks in the (\w+ bowl)', instruction)
print(pairs)


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
    if bowl.height_m is not None:
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
    arm = arm_for(rough.position_m[:2], ideal=0.28)
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
        arm = arm_for(block.position_m[:2], bowl_xy, ideal=0.28)
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

# Reference program for `pick_place`: put the named block in the named bowl.
# Written the way a careful model would work: measure, act, check every result, retry.

# %% Helpers: reach, a close look with a wrist camera, grasp and place
import re

TABLE_Z = 0.765
HOVER_Z = TABLE_Z + 0.08  # straight-down moves reach this height over most of the table
BASES = {'left': (-0.30, -0.45), 'right': (0.30, -0.45)}


def reach_excess(arm, *points):
    """Return how far (m) the worst point lies outside the arm's easy reach, 0.18-0.38 m."""
    bx, by = BASES[arm]
    return max(max(0.18 - d, d - 0.38, 0.0)
               for d in (math.hypot(p[0] - bx, p[1] - by) for p in points))


def best_arm(*points):
    """Return the arm that reaches all points best (then the one nearer the first point)."""
    return min(BASES, key=lambda a: (round(reach_excess(a, *points), 3),
                                     abs(points[0][0] - BASES[a][0])))


def look(name, arm, flat_size=None):
    """
    Locate the object, hover beside it and measure it with the arm's wrist camera.

    A flat thing (marker, zone: pass its side, m) is measured from the wrist view alone and
    accepted only when that view saw all of it.
    """
    rough = robo.locate(name, cameras=['head'])
    if not rough.found:
        robo.home(arm)  # the arm may hide the object from the head camera
        rough = robo.locate(name)
    if not rough.found:
        return rough
    x, y, _ = rough.position_m
    side = 0.06 if BASES[arm][0] > x else -0.06  # sideways, toward the arm's base
    # Hover beside the object, not over it, so the arm does not hide it from the head camera.
    for dx, dy in ((0.0, 0.05), (side, 0.0), (-side, 0.0), (side, -0.04), (0.0, 0.0)):
        if robo.move_to(arm, [x + dx, y + dy, HOVER_Z]).reached:
            if flat_size:
                est = robo.locate(name, cameras=[f'{arm}_wrist'])
                if est.found and min(est.size_m) >= flat_size - 0.005:
                    return est
                continue
            est = robo.locate(name, cameras=['head', f'{arm}_wrist'])
            if est.found and not math.isnan(est.height_m):
                return est
    robo.home(arm)
    est = robo.locate(name)
    return est if est.found else rough


def grasp(name, arm, tries=3):
    """Measure the block, descend onto it, close and lift; return its estimate if held."""
    for attempt in range(tries):
        est = look(name, arm)
        print(est)
        if not est.found:
            robo.home(arm)  # the arm may hide the object from the head camera
            continue
        x, y, z = est.position_m
        if math.isnan(z) or est.height_m < 0.035:  # partly seen: a 4 cm cube on the table
            z = TABLE_Z + 0.02
        robo.open_gripper(arm)
        print(robo.move_to(arm, [x, y, HOVER_Z], heading=est.heading_rad))
        print(robo.move_to(arm, [x, y, max(z + 0.005, 0.789)], heading=est.heading_rad,
                           descend=True))
        grip = robo.close_gripper(arm)
        print(grip)
        robo.move_to(arm, [x, y, HOVER_Z])
        if grip.held:
            return est
        robo.show(f'{arm}_wrist', note=f'grasp {attempt + 1} missed; looking again')
    return None


# %% Read the task, find both objects and choose the arm that reaches both
block_name, bowl_name = re.search(r'the (\w+ block) in the (\w+ bowl)', instruction).groups()
block = robo.locate(block_name)
bowl = robo.locate(bowl_name, cameras=['head'])  # rough: enough to choose the arm
print(block)
print(bowl)
arm = best_arm(block.position_m, bowl.position_m)
other = 'right' if arm == 'left' else 'left'
print('using the', arm, 'arm')
robo.home(other)

# %% Measure the bowl with the wrist camera, then grasp the block
bowl = look(bowl_name, arm)
print(bowl)
held = grasp(block_name, arm)
print('holding the block' if held else 'could not grasp the block')

# %% Lower the block into the bowl and release it
bx, by, _ = bowl.position_m
print(robo.move_to(arm, [bx, by, HOVER_Z]))
print(robo.move_to(arm, [bx, by, TABLE_Z + 0.05], descend=True))
print(robo.open_gripper(arm))
print(robo.move_to(arm, [bx, by, HOVER_Z]))

# %% Verify with a fresh look; retry once if the block is not in the bowl
check = robo.locate(block_name)
print(check)
off = math.hypot(check.position_m[0] - bx, check.position_m[1] - by) if check.found else 1.0
print(f'block is {off * 1000:.0f} mm from the bowl centre')
if off > 0.035 and grasp(block_name, arm):
    print(robo.move_to(arm, [bx, by, HOVER_Z]))
    print(robo.move_to(arm, [bx, by, TABLE_Z + 0.05], descend=True))
    print(robo.open_gripper(arm))
    print(robo.move_to(arm, [bx, by, HOVER_Z]))
robo.show('head', note='after placing')

# Reference program for `lift_object`: lift the named block 10 cm and keep holding it.
# Grasp it the careful way, lift with a tilted approach allowed, then check the height.

# %% Helpers: reach, a close look with a wrist camera, grasping
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


# %% Read the task and choose the arm on the block's side
block_name = re.search(r'the (\w+ block)', instruction).group(1)
block = robo.locate(block_name)
print(block)
arm = best_arm(block.position_m)
print('using the', arm, 'arm')
robo.home('right' if arm == 'left' else 'left')

# %% Grasp the block, then lift it 10 cm (above straight-down reach: allow a tilt)
start = grasp(block_name, arm)
x, y, z = start.position_m if start else (math.nan,) * 3
z = TABLE_Z + 0.02 if math.isnan(z) else z
bx, by = BASES[arm]
for pull in (0.0, 0.03, 0.06, 0.09):  # if needed, lift a little nearer the arm's base
    d = math.hypot(x - bx, y - by)
    k = max(d - pull, 0.15) / d
    up = robo.move_to(arm, [bx + (x - bx) * k, by + (y - by) * k, TABLE_Z + 0.15], max_tilt=0.6)
    print(up)
    if up.reached:
        break

# %% Check the grasp still holds and the block is high enough; hold it there
grip = robo.pose(arm)
print(grip)
print(f'block raised about {(grip.position_m[2] - 0.005 - z) * 1000:.0f} mm')
if grip.position_m[2] < TABLE_Z + 0.13:
    print(robo.move_to(arm, [*grip.position_m[:2], TABLE_Z + 0.16], max_tilt=0.8))
robo.show(f'{arm}_wrist', note='holding the block up')

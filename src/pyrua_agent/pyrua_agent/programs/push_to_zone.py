# Reference program for `push_to_zone`: push the named block into the zone of the named
# colour. Push with the closed fingers from behind, look again, push again if needed.

# %% Helpers: reach, a close look with a wrist camera, pushing, the zone test
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


def push(arm, start, goal):
    """Push with the closed fingers from behind ``start`` in a straight line toward ``goal``."""
    dx, dy = goal[0] - start[0], goal[1] - start[1]
    dist = math.hypot(dx, dy)
    ux, uy = dx / dist, dy / dist
    heading = math.atan2(uy, ux) + math.pi / 2  # fingers side by side across the push
    heading = math.atan2(math.sin(2 * heading), math.cos(2 * heading)) / 2  # a line's yaw
    behind = [start[0] - 0.05 * ux, start[1] - 0.05 * uy]
    stop = [goal[0] - 0.03 * ux, goal[1] - 0.03 * uy]  # fingers' front meets the block's back
    robo.close_gripper(arm)
    above = robo.move_to(arm, [*behind, HOVER_Z], heading=heading)
    if not above.reached:  # far out: a lower approach reaches farther
        above = robo.move_to(arm, [*behind, TABLE_Z + 0.065], heading=heading)
    print(above)
    print(robo.move_to(arm, [*behind, PUSH_Z], heading=heading, descend=True))
    print(robo.move_to(arm, [*stop, PUSH_Z], heading=heading, descend=True))
    robo.move_to(arm, [stop[0] - 0.03 * ux, stop[1] - 0.03 * uy, PUSH_Z], descend=True)
    robo.move_to(arm, [stop[0] - 0.03 * ux, stop[1] - 0.03 * uy, HOVER_Z])


def in_zone(block, zone, margin):
    """Return the block's offset in the zone's frame and whether it is inside by ``margin``."""
    ex, ey = block.position_m[0] - zone.position_m[0], block.position_m[1] - zone.position_m[1]
    c, s = math.cos(zone.heading_rad), math.sin(zone.heading_rad)
    u, v = c * ex + s * ey, -s * ex + c * ey
    return math.hypot(ex, ey), max(abs(u), abs(v)) <= 0.06 - margin


# %% Read the task, find the block and the zone, choose the arm that reaches both
PUSH_Z = TABLE_Z + 0.032  # finger tips 12 mm above the table: they meet the block's side
block_name, zone_name = re.search(r'the (\w+ block) into the (\w+ zone)', instruction).groups()
block = robo.locate(block_name)
zone = robo.locate(zone_name, cameras=['head'])
print(block)
print(zone)
arm = best_arm(block.position_m, zone.position_m)
print('using the', arm, 'arm')
robo.home('right' if arm == 'left' else 'left')
zone = look(zone_name, arm, flat_size=0.12)
print(zone)

# %% Push the block to the zone centre; look again and push again until it is well inside
for _ in range(4):
    block = look(block_name, arm)
    off, inside = in_zone(block, zone, 0.025)
    print(block)
    print(f'block is {off * 1000:.0f} mm from the zone centre; inside: {inside}')
    if inside:
        break
    push(arm, block.position_m, zone.position_m)
robo.show('head', note='block in the zone?')

# Reference program for `push_to_zone`: push the named block into the zone of the named
# colour. Push with the closed fingers from behind, look again, push again if needed.

# %% [include] _look_and_grasp.py

# %% Helpers: pushing, the zone test
import re


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
arm = choose_arm(block, zone)
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

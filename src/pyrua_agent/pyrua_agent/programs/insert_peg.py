# Reference program for `insert_peg`: insert the named square peg into the hole (4 mm
# clearance). The fixture is white, which the colour segmenter does not see, so the program
# finds its white top face in the head image and measures its centre and yaw itself.

# %% [include] _reach.py

# %% Helpers: finding the white hole fixture, moving with a tilt fallback
import re


def find_hole(camera):
    """Find the white fixture's top face in an image; return its centre (x, y) and yaw."""
    img = robo.image(camera).astype(int)
    white = (img.min(axis=2) > 225) & (np.ptp(img, axis=2) < 25)  # the table is beige
    vs, us = np.nonzero(white)
    if len(us) < 40:
        return None
    pick = np.linspace(0, len(us) - 1, min(len(us), 300)).astype(int)
    pts = np.array([robo.back_project(camera, float(us[k]), float(vs[k]),
                                      z=TABLE_Z + 0.04).point_m[:2] for k in pick])
    best = None
    for deg in range(-45, 45):  # the yaw whose bounding box is smallest: the square's sides
        c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
        local = pts @ np.array([[c, -s], [s, c]])
        lo, hi = local.min(axis=0), local.max(axis=0)
        if best is None or np.prod(hi - lo) < best[0]:
            mx, my = (lo + hi) / 2
            best = (np.prod(hi - lo), (c * mx - s * my, s * mx + c * my), math.radians(deg),
                    hi - lo)
    print(f'{camera}: white square {best[3][0] * 1000:.0f}x{best[3][1] * 1000:.0f} mm at '
          f'({best[1][0]:.3f}, {best[1][1]:.3f}) m, yaw {math.degrees(best[2]):.0f} deg')
    return best[1], best[2]


def move(arm, xyz, heading=None, descend=False):
    """Move in a straight line if possible, else a joint move or a small tilt; print it."""
    result = robo.move_to(arm, xyz, heading=heading, descend=descend)
    if not result.reached and result.duration_s == 0:  # refused: try a joint move, then a tilt
        result = robo.move_to(arm, xyz, heading=heading, descend=descend, path='joint')
    if not result.reached and result.duration_s == 0:
        result = robo.move_to(arm, xyz, heading=heading, descend=descend, max_tilt=0.35)
    print(result)
    return result


def measure_peg(peg_name, arm):
    """Measure the peg from the ready pose, else from near it with the wrist camera."""
    robo.home(arm)
    rough = robo.locate(peg_name)
    if rough.found and (rough.height_m or 0.0) > 0.06:
        return rough
    rough = rough if rough.found else robo.locate(peg_name, cameras=['head'])
    # The wrist sees the tall peg whole from 8-12 cm back toward the arm's base, 10-18 cm up.
    x, y, _ = rough.position_m
    bx, by = BASES[arm]
    d = math.hypot(x - bx, y - by)
    robo.close_gripper(arm)
    for back, up in ((0.08, 0.10), (0.08, 0.185), (0.12, 0.10), (0.12, 0.185)):
        at = [x - back * (x - bx) / d, y - back * (y - by) / d, TABLE_Z + up]
        if robo.move_to(arm, at, max_tilt=0.6).reached:
            est = robo.locate(peg_name, cameras=['head', f'{arm}_wrist'])
            if est.found and (est.height_m or 0.0) > 0.06:
                return est
    return rough


# %% Read the task; find the peg and the hole (the colour segmenter sees no white, so look
# for the fixture's white top face in the head image myself)
PEG_Z = TABLE_Z + 0.035  # peg centre
CARRY_Z = TABLE_Z + 0.092  # peg bottom 2 cm above the fixture top
peg_name = re.search(r'the (\w+ peg)', instruction).group(1)
peg = robo.locate(peg_name)
print(peg)
hole = find_hole('head')
assert hole, 'no white fixture in the head image'
(hx, hy), hole_yaw = hole
arm = best_arm(peg.position_m, (hx, hy))
print('using the', arm, 'arm')
robo.home('right' if arm == 'left' else 'left')

# %% Measure the peg with a wrist camera (closed fingers, hovering beside it), then grasp it
# across its sides at its centre, coming down from the ready pose with the fingers open
for attempt in range(3):
    peg = measure_peg(peg_name, arm)
    print(peg)
    px, py = peg.position_m[:2]
    robo.home(arm)
    robo.open_gripper(arm)
    move(arm, [px, py, CARRY_Z], heading=peg.heading_rad)
    move(arm, [px, py, PEG_Z + 0.001], heading=peg.heading_rad, descend=True)
    grip = robo.close_gripper(arm)
    print(grip)
    move(arm, [px, py, CARRY_Z])
    if grip.held:
        break
    robo.show(f'{arm}_wrist', note=f'peg grasp {attempt + 1} missed')

# %% Align the peg's sides with the hole and lower it 12 mm in; if it is stopped on the
# fixture (the move ends short), lift and try again 2 mm to each side in turn
now = robo.pose(arm).heading_rad
align = min((hole_yaw + k * math.pi / 2 for k in range(-3, 4)), key=lambda a: abs(a - now))
NUDGES = [(0.0, 0.0)] + [(0.002 * math.cos(k * math.pi / 4), 0.002 * math.sin(k * math.pi / 4))
                         for k in range(8)]
for dx, dy in NUDGES:
    move(arm, [hx + dx, hy + dy, CARRY_Z], heading=align)
    down = robo.move_to(arm, [hx + dx, hy + dy, PEG_Z + 0.028], heading=align, descend=True)
    print(down)
    if down.reached and down.error_m < 0.003:
        print('the peg went down into the hole')
        break
    print('the peg was stopped above the hole')
    move(arm, [hx + dx, hy + dy, CARRY_Z])
print(robo.open_gripper(arm))
move(arm, [hx, hy, CARRY_Z])
robo.show('head', note='peg in the hole?')

# Shared cells for the pick-and-set-down reference programs (handover, restore_block,
# swap_blocks, sort_by_color, stack_three): measuring with a wrist camera, grasping a block
# across its sides, setting it down, finding a free spot, choosing the arm. Include with
# `# %% [include] _measure_and_grasp.py`.

# %% [include] _reach.py

# %% Helpers: measure with a wrist camera, grasp, set down, free spots, locating, the arm
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
        if fine.found and fine.height_m is not None:
            print(fine)
            return fine
    print('no wrist measurement; using', rough)
    return rough


def grasp(name, arm, obj, width=None):
    """Grasp a block across its sides, check the grasp width, retry with a fresh look."""
    for attempt in range(3):
        x, y, z = obj.position_m
        z = TABLE_Z + 0.02 if z is None else max(z, TABLE_Z + 0.02)
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


def carry_over(arm, xy):
    """Move to hover height over xy by a line, else by a joint move; print each result."""
    # a long straight line can run a wrist joint to its limit
    over = robo.move_to(arm, [*xy, HOVER_Z])
    if not over.reached:
        print(over)
        over = robo.move_to(arm, [*xy, HOVER_Z], path='joint')
    print(over)
    return over


def put_down(arm, xy, z_centre=TABLE_Z + 0.02):
    """Set the held block down with its centre at (xy, z_centre), let go and rise."""
    carry_over(arm, xy)
    print(robo.move_to(arm, [*xy, z_centre + 0.007], descend=True))
    print(robo.open_gripper(arm))
    print(robo.move_to(arm, [*xy, HOVER_Z]))


def free_spot(arm, avoid, distances=(0.28, 0.25, 0.31, 0.22, 0.34)):
    """
    Return a table spot 9 cm or more from every point in avoid.

    :param distances: distances (m) from the arm base to try, in order.
    """
    bx, by = BASES[arm]
    for d in distances:
        for deg in range(30, 151, 10):
            x, y = bx + d * math.cos(math.radians(deg)), by + d * math.sin(math.radians(deg))
            if -0.42 < x < 0.42 and -0.28 < y < 0.03 and \
                    all(math.dist((x, y), p) >= 0.09 for p in avoid):
                return (x, y)
    raise RuntimeError('no free spot found')


def arm_for(*points, ideal=0.29):
    """Return the arm whose base is nearest ``ideal`` (m) from all points (the worst counts)."""
    return min(BASES, key=lambda arm: max(abs(dist(arm, p) - ideal) for p in points))


def locate_all(*names):
    """Locate each named object and print the results; all must be found."""
    seen = [robo.locate(name) for name in names]
    print(*seen, sep='\n')
    assert all(s.found for s in seen), [s.reason for s in seen]
    return seen

# Shared cells for the single-arm reference programs (pick_place, lift_object, push_to_zone,
# stack_blocks, place_on_marker): choosing the arm, a close look with a wrist camera,
# grasping, placing and correcting a placement.
# Include with `# %% [include] _look_and_grasp.py`.

# %% [include] _reach.py

# %% Helpers: a close look with a wrist camera, grasp and place
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
            if est.found and est.height_m is not None:
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
        if z is None or est.height_m < 0.035:  # partly seen: a 4 cm cube on the table
            z = TABLE_Z + 0.02
        robo.open_gripper(arm)
        print(robo.move_to(arm, [x, y, HOVER_Z], heading=est.heading_rad))
        print(robo.move_to(arm, [x, y, max(z + 0.005, LOWEST_Z + 0.001)], heading=est.heading_rad,
                           descend=True))
        grip = robo.close_gripper(arm)
        print(grip)
        robo.move_to(arm, [x, y, HOVER_Z])
        if grip.held:
            return est
        robo.show(f'{arm}_wrist', note=f'grasp {attempt + 1} missed; looking again')
    return None


def place_at(arm, x, y, z):
    """Carry the held object over (x, y), lower it to TCP height z, release, back off up."""
    print(robo.move_to(arm, [x, y, HOVER_Z]))
    print(robo.move_to(arm, [x, y, z], descend=True))
    print(robo.open_gripper(arm))
    robo.move_to(arm, [x, y, HOVER_Z])


def choose_arm(*rough):
    """Print the rough estimates, return the arm that reaches them all best, home the other."""
    for est in rough:
        print(est)
    found = [est.position_m for est in rough if est.found]  # a not-found one has no position
    arm = best_arm(*found) if found else 'left'
    print('using the', arm, 'arm')
    robo.home('right' if arm == 'left' else 'left')
    return arm


def place_centred(name, arm, goal, place_z, tolerance, min_z=None):
    """
    Grasp the block and place it centred on goal; measure it and correct, up to 3 times.

    The grasp offset repeats, so each retry aims against the last miss.

    :param place_z: TCP height (m) at which to release the block.
    :param tolerance: largest accepted distance (m) between block and goal centres.
    :param min_z: when set, the block's centre must also end above this height (m).
    """
    aim_x, aim_y = goal
    for _ in range(3):
        if not grasp(name, arm):
            break
        place_at(arm, aim_x, aim_y, place_z)
        check = look(name, arm)
        if not check.found:
            print(check)
            continue
        ex, ey = check.position_m[0] - goal[0], check.position_m[1] - goal[1]
        cz = check.position_m[2]  # None when the height was not measured
        print(f'{name} is {math.hypot(ex, ey) * 1000:.1f} mm off its goal, centre at z={cz}')
        if math.hypot(ex, ey) <= tolerance and (min_z is None or (cz or 0.0) > min_z):
            break
        aim_x, aim_y = aim_x - ex, aim_y - ey  # aim against the repeating grasp offset

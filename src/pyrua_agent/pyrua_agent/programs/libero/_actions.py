# Shared cells of the LIBERO reference programs for libero_goal and libero_10: one action per
# kind of step that _kinds.py reads that is not a pick and place (open/close a drawer, turn on
# the stove, push). Needs the cells of _libero.py (resolve, grasp, place) first.
# Left/right/front/back are as the benchmark's main camera ('agentview') sees the table: the
# instructions were written looking at that view. Include with `# %% [include] _actions.py`.

# %% Helpers: the viewer's directions and the fixtures' parts
FACTS = robo.station_facts()
_view = robo.camera_meta('agentview').forward
_fwd = np.array([_view[0], _view[1]]) / math.hypot(_view[0], _view[1])
VIEW = {'right of': np.array([_fwd[1], -_fwd[0]]), 'front of': -_fwd, 'behind': _fwd}
VIEW['left of'] = -VIEW['right of']
for _word, _side in (('front', 'front of'), ('back', 'behind'), ('right', 'right of'),
                     ('left', 'left of')):
    VIEW[_word] = VIEW[_side]
BASE = np.array(FACTS.base_xy(ARM))

# Prior knowledge of the benchmark's fixture assets (as a CAD model is in model-based pose
# estimation), measured once from the asset files, never from an episode: a cabinet's
# drawers slide along its short side, and their handles are horizontal bars at these
# fractions of the cabinet's height; the stove's knob sits on its long axis, toward its
# front-panel end, KNOB_FROM_CENTRE_M from the middle, and its burner toward the other end.
HANDLE_FRACTION = {'top': 0.82, 'middle': 0.49, 'bottom': 0.165}
CABINET_CLOSED_DEPTH_M = 0.221
DRAWER_OPEN_M = 0.15            # the benchmark counts a drawer open past 0.14 m
KNOB_FROM_CENTRE_M = 0.10
BURNER_FROM_CENTRE_M = 0.06    # the burner: this far from the middle, away from the knob
KNOB_TURN_RAD = 1.4             # the benchmark counts the stove on past 0.5 rad
PUSH_BEYOND_M = 0.12         # 'to the front of X': this far past X's edge
SIDE_GAP_M = 0.10               # 'to the right of X': this far beside X's middle


def along(vec):
    vec = np.asarray(vec, dtype=float)
    return vec / np.linalg.norm(vec)


def toward_arm(obj, axis):
    """Return +axis or -axis, whichever points from the object toward the arm's base."""
    axis = along(axis)
    return axis if np.dot(BASE - np.array(xy(obj)), axis) > 0 else -axis


def front_of_cabinet(cab):
    """Return the unit (x, y) direction the cabinet's drawers come out toward."""
    h = cab.heading_rad  # the benchmark's cabinets: drawers slide along their own y axis
    return toward_arm(cab, [-math.sin(h), math.cos(h)])


def cabinet_depth(cab, out):
    """Return the cabinet's box along its drawers' line (deeper than closed: one is out)."""
    w, d = cab.size_m
    return abs(out[0]) * w + abs(out[1]) * d


def level_of(phrase):
    found = re.search(r'\b(top|middle|bottom)\b', phrase)
    return found.group(1) if found else None


def fixture(phrase):
    """Return the located fixture a phrase names ('bottom drawer of the cabinet' -> cabinet)."""
    phrase = re.sub(r'^(the )?(top|middle|bottom) (drawer|layer)( of (the )?)?', '', phrase)
    phrase = phrase.strip() or 'cabinet'
    if phrase in ('drawer', 'drawers'):
        phrase = 'cabinet'
    return resolve(phrase)


def side_point(ref, side, gap=SIDE_GAP_M):
    """Return the table point beside a located object on a side as the camera sees it."""
    return np.array(xy(ref)) + VIEW[side] * gap


# %% Helpers: motions for drawers, knobs and pushing
def move(xyz, heading=None, descend=False):
    result = robo.move_to(ARM, [float(c) for c in xyz], heading=heading, descend=descend)
    print(result)
    return result


def near(result, tolerance=0.02):
    """
    Return whether a move ended within tolerance (m).

    Close to the base the controller may stop a few millimetres short and call it blocked.
    """
    return result.reached or (result.error_m is not None and result.error_m < tolerance)


def push_along(start, end, z, heading, steps=4, spread=False):
    """Drive the gripper (closed, or open: two fingers apart) from start to end at height z."""
    if spread:
        robo.open_gripper(ARM)
    else:
        robo.close_gripper(ARM)
    move([start[0], start[1], z + 0.10], heading)
    if not near(move([start[0], start[1], z], heading, descend=True)):
        return False
    ok = True
    for k in range(1, steps + 1):
        p = start + (end - start) * k / steps
        ok = near(move([p[0], p[1], z], heading, descend=True)) and ok
    move([end[0], end[1], z + 0.10], heading)
    return ok


def open_drawer(level, phrase):
    """
    Pull a cabinet's drawer out by its handle bar, hooked by the back finger.

    The hand comes straight down: its back finger must fit in the 2 cm between the bar and
    the drawer's face. Over a lower drawer the handle of the drawer above stops the hand
    first; then this reports that the handle was not reached and pulls nothing.
    """
    cab = fixture(phrase)
    out = front_of_cabinet(cab)
    bottom = cab.top_z_m - cab.height_m
    z = bottom + HANDLE_FRACTION[level] * cab.height_m
    depth = cabinet_depth(cab, out)
    bar = np.array(xy(cab)) + out * (depth / 2 - 0.0155)
    heading = math.atan2(out[1], out[0])  # the closing line along the pull
    robo.open_gripper(ARM)
    hook = bar + out * 0.025   # the back finger just behind the bar, the front one in front
    move([hook[0], hook[1], z + 0.12], heading)
    move([hook[0], hook[1], z], heading, descend=True)
    low = robo.pose(ARM).position_m[2]
    tips = low - FACTS.fingertip_beyond_tcp_m
    if tips > z + 0.006:  # the finger tips stopped above the bar: nothing to hook
        print(f'the {level} drawer handle of {cab.query} (z {z:.3f} m) is not reached: the '
              f'hand stopped with its finger tips at {tips:.3f} m (something above the handle '
              'is in the way of a top-down hand); not pulling')
        move([hook[0], hook[1], z + 0.12], heading)
        robo.home(ARM)
        return None
    for k in range(1, 7):
        p = hook + out * (DRAWER_OPEN_M + 0.01) * k / 6
        move([p[0], p[1], low], heading, descend=True)
    robo.open_gripper(ARM)
    move([p[0], p[1], low + 0.12], heading)
    robo.home(ARM)
    after = fixture(phrase)
    pulled = cabinet_depth(after, out) - depth
    print(f'{cab.query}: the box is {pulled * 100:.1f} cm deeper after the pull (the '
          f'{level} drawer out needs {DRAWER_OPEN_M * 100:.0f} cm)')
    return after if pulled > DRAWER_OPEN_M - 0.02 else None


def close_drawer(phrase):
    """Push an open drawer of a cabinet back in (its front face) with the closed gripper."""
    cab = fixture(phrase)
    out = front_of_cabinet(cab)
    depth = cabinet_depth(cab, out)
    if depth < CABINET_CLOSED_DEPTH_M + 0.02:
        print(f'{cab.query}: no drawer is out ({depth:.3f} m deep); nothing to close')
        return True
    level = level_of(phrase) or 'bottom'
    bottom = cab.top_z_m - cab.height_m
    z = max(bottom + HANDLE_FRACTION[level] * cab.height_m + 0.02, FACTS.lowest_descend_z_m)
    centre = np.array(xy(cab))
    face = centre + out * (depth / 2)
    start = face + out * 0.04
    end = centre + out * (depth / 2 - (depth - CABINET_CLOSED_DEPTH_M) - 0.01)
    heading = math.atan2(out[0], -out[1])  # the fingers' flat side to the drawer
    push_along(start, end, z, heading)
    robo.home(ARM)
    return cab


def stove_axis(stove):
    """Return the unit (x, y) of the stove's long axis, pointing from its knob to its burner."""
    w, d = stove.size_m
    h = stove.heading_rad
    if w >= d:
        axis = np.array([math.cos(h), math.sin(h)])
    else:
        axis = np.array([-math.sin(h), math.cos(h)])
    return -toward_arm(stove, axis)


def turn_on(phrase):
    """Turn the stove's knob counter-clockwise: push its bar round with the closed fingers."""
    stove = resolve('stove' if 'stove' in phrase else phrase)
    u = stove_axis(stove)                # along the knob's bar, toward the stove's middle
    knob = np.array(xy(stove)) - u * KNOB_FROM_CENTRE_M
    n = np.array([-u[1], u[0]])          # counter-clockwise of u
    z = max(stove.top_z_m, FACTS.lowest_descend_z_m)  # the finger tips on the bar's side
    points = []
    for k in range(0, 9):
        a = KNOB_TURN_RAD * k / 8
        c, s = math.cos(a), math.sin(a)
        local = np.array([0.035, -0.02])  # just behind the bar, clockwise of it
        turned = np.array([c * local[0] - s * local[1], s * local[0] + c * local[1]])
        points.append(knob + turned[0] * u + turned[1] * n)
    heading = math.atan2(u[1], u[0])
    robo.close_gripper(ARM)
    move([points[0][0], points[0][1], z + 0.08], heading)
    if not near(move([points[0][0], points[0][1], z], heading, descend=True)):
        return False
    for p in points[1:]:
        move([p[0], p[1], z], heading, descend=True)
    move([points[-1][0], points[-1][1], z + 0.08], heading)
    robo.home(ARM)
    return True


def push(phrase, side, ref_phrase):
    """
    Push an object along the table until it stands on the named side of another one.

    A plate or a bowl is pushed from inside: the closed fingers go down in its middle and
    drag its far rim along (no room is needed around it); anything else from behind.
    """
    obj, ref = resolve(phrase), resolve(ref_phrase)
    if obj is None or ref is None:
        return False
    extent_ref = abs(np.dot(VIEW[side], [ref.size_m[0], 0])) + abs(np.dot(VIEW[side],
                                                                          [0, ref.size_m[1]]))
    goal = np.array(xy(ref)) + VIEW[side] * (extent_ref / 2 + PUSH_BEYOND_M)
    dish = any(w in obj.query for w in ('plate', 'bowl', 'tray'))
    for _ in range(3):
        here = np.array(xy(obj))
        gap = goal - here
        if np.linalg.norm(gap) < 0.02:
            break
        way = along(gap)
        radius = max(obj.size_m) / 2
        bottom = obj.position_m[2] - obj.height_m / 2
        if dish:  # the finger tips just above its floor, the rim ahead of them
            z = max(FACTS.lowest_descend_z_m, bottom + 0.006 + FACTS.fingertip_beyond_tcp_m)
            start, end = here, goal + way * (radius - 0.02)
        else:
            z = max(FACTS.lowest_descend_z_m, bottom + 0.01 + FACTS.fingertip_beyond_tcp_m)
            start, end = here - way * (radius + 0.03), goal - way * (radius + 0.005)
        heading = math.atan2(way[0], -way[1])  # the fingers side by side across the push
        steps = max(1, math.ceil(np.linalg.norm(end - start) / 0.03))  # 3 cm lines
        push_along(start, end, z, heading, steps=steps, spread=dish)
        obj = robo.locate(obj.query)
        print(f'{obj.query} now at ({obj.position_m[0]:.3f}, {obj.position_m[1]:.3f}); goal '
              f'({goal[0]:.3f}, {goal[1]:.3f})')
    robo.home(ARM)
    return True

# Shared cells of the LIBERO reference programs for libero_goal and libero_10: one action per
# kind of step that _kinds.py reads (open/close a drawer, turn on the stove, push, place beside
# or on top of, several objects). Needs the cells of _libero.py (resolve, grasp, place) first.
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


# %% Helpers: where a place step puts the object, and the steps in order
SYNONYMS.update({'white mug': 'porcelain mug', 'yellow and white mug': 'white yellow mug',
                 'drawer': 'cabinet', 'rack': 'wine_rack'})
DRAWER_FLOOR_FRACTION = {'top': 0.706, 'middle': 0.385, 'bottom': 0.073}


class Spot:
    """A place to put something down that is not an object: beside one, in a drawer."""

    def __init__(self, x, y, top_z, query):
        self.position_m, self.top_z_m, self.query = (x, y, top_z), top_z, query
        self.size_m, self.height_m, self.found, self.heading_rad = (0.0, 0.0), 0.0, True, 0.0

    def __repr__(self):
        return f'Spot({self.query!r} at ({self.position_m[0]:.3f}, {self.position_m[1]:.3f}), ' \
               f'z {self.top_z_m:.3f})'


def pick_by_side(phrase):
    """Return the located object for 'left plate' / 'right plate': the one on that side."""
    found = re.fullmatch(r'(?:the )?(left|right|front|back) (.+)', phrase)
    if not found:
        return resolve(phrase)
    side, noun = found.groups()
    names = candidates(noun)
    if not names:
        return resolve(noun)
    located = [robo.locate(n) for n in names]
    return max(located, key=lambda e: float(np.dot(VIEW[side], xy(e))))


def target_of(how, phrase):
    """Return (target, inside) for a place step: an object, a fixture's top, or a Spot."""
    if how in VIEW:
        ref = pick_by_side(phrase)
        if ref is None:
            return None, False
        x, y = side_point(ref, how, SIDE_GAP_M)
        return Spot(x, y, FACTS.table_z_m, f'{how} {ref.query}'), False
    level = level_of(phrase)
    if ('drawer' in phrase or 'cabinet' in phrase) and how == 'in' and level:
        cab = fixture(phrase)
        out = front_of_cabinet(cab)
        depth = cabinet_depth(cab, out)
        face = np.array(xy(cab)) + out * (depth / 2)
        x, y = face - out * min(0.075, (depth - CABINET_CLOSED_DEPTH_M) / 2 + 0.01)
        floor = cab.top_z_m - cab.height_m + DRAWER_FLOOR_FRACTION[level] * cab.height_m
        return Spot(x, y, floor, f'{level} drawer of {cab.query}'), True
    if 'drawer' in phrase or 'cabinet' in phrase:
        return fixture(phrase), False
    if 'stove' in phrase and how == 'on':  # its burner, not the knob's end
        stove = resolve('stove')
        x, y = np.array(xy(stove)) + stove_axis(stove) * BURNER_FROM_CENTRE_M
        spot = Spot(x, y, stove.top_z_m, f'burner of {stove.query}')
        spot.size_m, spot.heading_rad = stove.size_m, stove.heading_rad
        return spot, False
    return pick_by_side(phrase), how == 'in'


def grasp_top(obj):
    """Grasp a tall object too wide for the hand (a moka pot) by its top, across."""
    x, y = xy(obj)
    w, d = obj.size_m
    heading = obj.heading_rad + (0.0 if w <= d else math.pi / 2)  # across the narrower side
    z = obj.top_z_m - 0.03  # below the lid's knob: the pot's upper rim
    robo.open_gripper(ARM)
    move([x, y, obj.top_z_m + 0.08], heading)
    move([x, y, z], heading, descend=True)
    grip = robo.close_gripper(ARM)
    print(grip)
    move([x, y, obj.top_z_m + 0.13])
    lifted = robo.locate(obj.query)
    hang = z - (obj.position_m[2] - obj.height_m / 2)
    if lifted.found and lifted.height_m is not None:
        hang = robo.pose(ARM).position_m[2] - (lifted.position_m[2] - lifted.height_m / 2)
    return grip.held, 0.0, hang


def grasp_any(obj):
    """Grasp by the top when the object is tall and wider than the hand, else as _libero does."""
    containers = ('bowl', 'mug', 'basket', 'plate', 'caddy')
    if min(obj.size_m) > 0.075 and obj.height_m > max(obj.size_m) and \
            not any(c in obj.query for c in containers):
        return grasp_top(obj)
    return grasp(obj)


def set_down_centred(obj, target, hang):
    """
    Set the held object down with its middle on the target's middle.

    The benchmark's 'on' wants the two within 3 cm: once above the target the object is
    located in the hand, and the hand moved by the object's offset, so that the object, not
    the hand, is centred.
    """
    tx, ty = xy(target)
    z = target.top_z_m + hang + 0.01
    high = z + 0.06
    if not near(move([tx, ty, high])):  # a long line may stall: go round in joint space
        print(robo.move_to(ARM, [tx, ty, high], path='joint'))
    for _ in range(2):
        held = robo.locate(obj.query)
        tcp = robo.pose(ARM).position_m
        if not held.found:
            break
        off = np.array(xy(held)) - np.array(xy(target))
        if np.linalg.norm(off) < 0.005 or np.linalg.norm(off) > 0.08:
            break  # centred, or not seen where the hand is
        move([tcp[0] - off[0], tcp[1] - off[1], high])
    tcp = robo.pose(ARM).position_m
    move([tcp[0], tcp[1], z], descend=True)
    print(robo.open_gripper(ARM))
    move([tcp[0], tcp[1], z + 0.1])


def retreat():
    """
    Go home from where an object was let go: up, the wrist turned back square, then home.

    A half-turned wrist sent straight home can stall the controller and sweep the table.
    """
    tcp = robo.pose(ARM).position_m
    move([tcp[0], tcp[1], tcp[2] + 0.08], 0.0)
    robo.home(ARM)


def put(obj, target, inside):
    """Grasp a located object and put it on/in a target; return whether it was let go there."""
    print(obj, '->', target)
    for _ in range(2):
        held, dx, hang = grasp_any(obj)
        if held and not inside and not isinstance(target, Spot):
            set_down_centred(obj, target, hang)
            retreat()
            return True
        if held:
            place(obj, target, inside, dx, hang)
            retreat()
            return True
        obj = robo.locate(obj.query)
    retreat()
    return False


def run_step(step, slot=0, of=1):
    """
    Carry out one step that _kinds.kinds read; return whether it went through.

    slot / of: this place step is the slot-th of `of` steps that put things in one target.
    """
    kind = step[0]
    if kind == 'open':
        return open_drawer(step[1], step[2]) is not None
    if kind == 'close':
        return close_drawer(step[1]) is not None
    if kind == 'turn_on':
        return turn_on(step[1])
    if kind == 'push':
        return push(step[1], step[2], step[3])
    _, phrase, how, target_phrase = step
    if kind == 'place_all':
        objs = [robo.locate(n) for n in candidates(phrase)]
        done = 0
        for k, obj in enumerate(objs):
            target, inside = target_of(how, target_phrase)
            if target is None:
                return False
            if len(objs) > 1:  # share the target: side by side along its longer side
                w, d = target.size_m
                h = target.heading_rad + (0.0 if w >= d else math.pi / 2)
                off = (k - (len(objs) - 1) / 2) * 0.09
                x, y = xy(target)
                target = Spot(x + off * math.cos(h), y + off * math.sin(h), target.top_z_m,
                              target.query)
            done += put(obj, target, inside)
        return done == len(objs)
    obj = pick_by_side(phrase)
    target, inside = target_of(how, target_phrase)
    if obj is None or target is None:
        return False
    if of > 1 and not isinstance(target, Spot):  # several into one: side by side in it
        target = beside_in(target, slot, of)
    return put(obj, target, inside)


def beside_in(target, slot, of):
    """Return the Spot for the slot-th of several objects put into (onto) one target."""
    w, d = target.size_m
    h = target.heading_rad + (0.0 if w >= d else math.pi / 2)
    off = (slot - (of - 1) / 2) * min(0.07, max(w, d) / of - 0.01)
    x, y = xy(target)
    spot = Spot(x + off * math.cos(h), y + off * math.sin(h), target.top_z_m, target.query)
    spot.size_m, spot.heading_rad = target.size_m, target.heading_rad
    return spot


def solve_steps(text):
    """Run every step of the instruction in order; return how many went through."""
    plan = kinds(text)
    if plan is None:
        print(f'instruction kind not handled by this program: {text!r}')
        return 0
    print(plan)
    shared = [step[2:] if step[0] == 'place' and step[2] == 'in' else None for step in plan]
    done = 0
    for k, step in enumerate(plan):
        slot = shared[:k].count(shared[k]) if shared[k] else 0
        of = shared.count(shared[k]) if shared[k] else 1
        ok = bool(run_step(step, slot, of))
        done += ok
        if not ok and step[0] == 'open':
            print(f'stopping: {step} did not go through, and the steps after it need it')
            break
    return done

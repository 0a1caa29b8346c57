# Shared cells of the LIBERO reference programs: read the instruction as pick-and-place
# steps, find the named objects, grasp, place. Generic per kind of instruction, never per
# init state. They locate objects by the benchmark's names, so they need
# `--perception oracle` (PRIVILEGED: robo.objects and the ground-truth robo.locate) or
# `--perception rgbd` (not privileged: RGB-D segments named by the LIBERO asset catalogue).
# Include with `# %% [include] _libero.py`.

# %% Helpers: the table, names, relations
import re

import numpy as np

ARM = 'arm'
NAMES = robo.objects()
SYNONYMS = {'stove': 'flat_stove', 'cabinet': 'wooden_cabinet', 'rack': 'wine_rack',
            'cookie box': 'cookies', 'cookies box': 'cookies', 'cream cheese box': 'cream_cheese',
            'bowl': 'bowl', 'pudding': 'chocolate_pudding', 'soup': 'alphabet_soup',
            'sauce': 'sauce'}


def words(name):
    """Return the words of a benchmark name without its instance number."""
    return [w for w in name.split('_') if not w.isdigit()]


def candidates(phrase):
    """Return the benchmark names that best match a phrase ('black bowl', 'cookie box')."""
    phrase = phrase.lower().replace('the ', '').strip()
    phrase = SYNONYMS.get(phrase, phrase).replace('_', ' ')
    said = [w for w in re.split(r'[\s-]+', phrase) if w]
    best, found = 0, []
    for name in NAMES:
        have = words(name)
        score = sum(any(t.startswith(w) or w.startswith(t) for t in have) for w in said)
        if score > best:
            best, found = score, [name]
        elif score == best and score:
            found.append(name)
    return found


def xy(est):
    return est.position_m[0], est.position_m[1]


def resolve(phrase):
    """Return the located object a phrase names, using a relation when several match."""
    noun, relation, other = phrase, '', ''
    for key in (' between ', ' next to ', ' from ', ' on top of ', ' on ', ' in ', ' at '):
        if key in phrase:
            noun, other = phrase.split(key, 1)
            relation = key.strip()
            break
    names = candidates(noun)
    if not names:
        print(f'no object matches {noun!r}; objects: {NAMES}')
        return None
    found = [robo.locate(n) for n in names]
    if len(found) == 1 or not relation:
        return found[0]
    if relation == 'between':
        a, b = (resolve(p) for p in other.split(' and '))
        mid = ((a.position_m[0] + b.position_m[0]) / 2, (a.position_m[1] + b.position_m[1]) / 2)
        return min(found, key=lambda e: math.dist(xy(e), mid))
    if relation == 'from' and 'center' in other:
        return min(found, key=lambda e: math.dist(xy(e), (0.0, 0.0)))
    other = re.sub(r'^(the )?(top|middle|bottom) (drawer|layer) of ', '', other)
    ref = resolve(other)
    if relation == 'next to':
        # beside it on the table, not on top of it
        beside = [e for e in found if e.position_m[2] - e.height_m / 2 < ref.top_z_m - 0.01]
        return min(beside or found, key=lambda e: math.dist(xy(e), xy(ref)))
    return min(found, key=lambda e: math.dist(xy(e), xy(ref)))


# %% Helpers: grasp and place
HAND_HALF_M = 0.11  # the Panda hand reaches this far from the TCP along the closing line


def extent(obj, heading):
    """Return the object's width along a closing line (its box taken as axis-aligned)."""
    w, d = obj.size_m
    return abs(w * math.cos(heading)) + abs(d * math.sin(heading))


def clearance(x, y, heading, z, others):
    """Return the room (m) the hand has at (x, y) with this heading: nearest taller thing."""
    c, s = math.cos(heading), math.sin(heading)
    hand = [(x + t * c, y + t * s) for t in np.linspace(-HAND_HALF_M, HAND_HALF_M, 9)]
    room = 1.0
    for other in others:
        if not other.found or other.top_z_m is None or other.top_z_m < z + 0.04:
            continue
        ox, oy = xy(other)
        hw, hd = other.size_m[0] / 2, other.size_m[1] / 2
        for px, py in hand:
            gap = math.hypot(max(abs(px - ox) - hw, 0.0), max(abs(py - oy) - hd, 0.0))
            room = min(room, gap - 0.03)  # the hand is about 6 cm thick
    return room


def best_heading(x, y, z, options, skip=(), prefer=lambda h: 0.0):
    """Return the heading among options with the most room for the hand."""
    others = [robo.locate(name) for name in NAMES if name not in skip]  # look once
    return max(options, key=lambda h: (round(min(clearance(x, y, h, z, others), 0.05), 2),
                                       prefer(h)))


def grasp(obj):
    """Grasp a located object from above; return (held, grasp offset in x, hang below TCP)."""
    w, d = obj.size_m
    x, y = xy(obj)
    bottom = obj.position_m[2] - obj.height_m / 2
    if 'bowl' in obj.query or 'mug' in obj.query or min(w, d) > 0.075:
        dx, heading = max(w, d) / 2 - 0.012, 0.0       # the rim, fingers across its wall
        z = obj.top_z_m - 0.015
    else:
        dx = 0.0
        z = max(obj.top_z_m - min(0.035, obj.height_m * 0.5), bottom + 0.024)
        options = [k * math.pi / 8 for k in range(-4, 4)]
        options = [h for h in options if extent(obj, h) < 0.07] or [0.0 if w < d else math.pi / 2]
        heading = best_heading(x, y, z, options, skip=(obj.query,),
                               prefer=lambda h: -extent(obj, h))
    robo.open_gripper(ARM)
    above = max(obj.top_z_m + 0.10, z + 0.10)
    print(robo.move_to(ARM, [x + dx, y, above], heading=heading))
    print(robo.move_to(ARM, [x + dx, y, z], heading=heading, descend=True))
    grip = robo.close_gripper(ARM)
    print(grip)
    print(robo.move_to(ARM, [x + dx, y, above + 0.05]))
    # measure how far the held object hangs below the TCP now (it may have turned)
    lifted = robo.locate(obj.query)
    if lifted.found and lifted.height_m is not None:
        hang = robo.pose(ARM).position_m[2] - (lifted.position_m[2] - lifted.height_m / 2)
    else:  # not seen in the hand (rgbd leaves the hand out of the scene): as grasped
        hang = z - bottom
    return grip.held, dx, hang


def place(obj, target, inside, dx, hang):
    """Put the held object on (or into) a located target and let go."""
    tx, ty = xy(target)
    top = target.top_z_m
    # on it, or into it (a bowl, a basket): let go just above its top, it settles in
    z = top + hang + (0.02 if inside else 0.01)
    high = max(z, top + hang) + 0.06
    # keep the grasp offset dx along the closing line: turn it with the heading
    now = robo.pose(ARM).heading_rad
    options = [now + k * math.pi / 8 for k in range(-3, 4)]
    heading = best_heading(tx, ty, z, options, skip=(obj.query, target.query),
                           prefer=lambda h: -abs(h - now))
    ox, oy = dx * math.cos(heading - now), dx * math.sin(heading - now)  # rim grasps: yaw 0
    print(robo.move_to(ARM, [tx + ox, ty + oy, high], heading=heading))
    print(robo.move_to(ARM, [tx + ox, ty + oy, z], descend=True))
    print(robo.open_gripper(ARM))
    print(robo.move_to(ARM, [tx + ox, ty + oy, high + 0.05]))


def steps(text):
    """Read an instruction as (object phrase, 'on'/'in', target phrase) steps, or None."""
    text = text.lower().strip().rstrip('.')
    both = re.fullmatch(r'put both the (.+?) and the (.+?) (in|on) the (.+)', text)
    if both:
        a, b, how, target = both.groups()
        return [(a, how, target), (b, how, target)]
    pick = re.fullmatch(r'pick (?:up )?the (.+?) and place it (in|on|on top of) the (.+)', text)
    if pick:
        return [pick.groups()]
    out = []
    for part in re.split(r' and put | and place ', text):
        step = re.fullmatch(r'(?:put|place) (?:the )?(.+?) (in|on top of|on|into) the (.+)', part)
        if not step:
            return None
        out.append(step.groups())
    return out


def solve(text):
    """Run every pick-and-place step of the instruction; return how many were done."""
    plan = steps(text)
    if plan is None:
        print(f'instruction kind not handled by this program: {text!r}')
        return 0
    done = 0
    for phrase, how, target_phrase in plan:
        obj = resolve(phrase)
        target = resolve(target_phrase)
        if obj is None or target is None:
            continue
        print(obj, '->', target)
        for _ in range(2):
            held, dx, hang = grasp(obj)
            if held:
                place(obj, target, how in ('in', 'into'), dx, hang)
                done += 1
                break
            obj = robo.locate(obj.query)
        robo.home(ARM)
    return done

# Shared cell of the LIBERO reference programs: read an instruction as a list of steps, one
# kind of step per verb. Pure text (no robot): the kinds are
#   ('open', level, fixture)          open the top/middle/bottom drawer of a cabinet
#   ('close', fixture)                close a drawer (level in the phrase) or a door
#   ('turn_on', fixture)              turn on the stove (its knob)
#   ('push', obj, side, ref)          push an object to a side ('front', ...) of another
#   ('place', obj, how, target)       pick and place: how is 'on', 'in', 'on top of',
#                                     or a side: 'right of', 'left of', 'front of', 'behind'
#   ('place_all', obj, how, target)   the same for every object of a plural ('both moka pots')
# 'it' and 'inside' name what the step before opened or put down on. Include with
# `# %% [include] _kinds.py`.

# %% Helpers: instruction kinds
import re

SIDES = {'right': 'right of', 'left': 'left of', 'front': 'front of', 'back': 'behind'}


def _object(phrase):
    """Return a phrase without its leading article."""
    return re.sub(r'^(the|a|an)\s+', '', phrase.strip())


def _open(part):
    found = re.fullmatch(r'open the (top|middle|bottom) (?:layer|drawer) of the (.+)', part) \
        or re.fullmatch(r'open the (top|middle|bottom) (drawer)(?: of the (.+))?', part)
    if not found:
        return None
    level, fixture = found.group(1), found.groups()[-1] or 'cabinet'
    return ('open', level, _object(fixture))


def _place(part, previous):
    """Read one 'put/place X <where> Y' clause as a place step, or None."""
    both = re.fullmatch(r'(?:put|place) both (?:the )?(.+?)s (in|on|into) (?:the )?(.+)', part)
    if both and ' and ' not in both.group(1):
        obj, how, target = both.groups()
        return ('place_all', obj, 'in' if how == 'into' else how, _object(target))
    side = re.fullmatch(r'(?:put|place) (?:the )?(.+?) (?:to the|on the|in) '
                        r'(right|left|front|back) (?:side )?of (?:the )?(.+)', part)
    if side:
        obj, where, target = side.groups()
        return ('place', obj, SIDES[where], _object(target))
    step = re.fullmatch(r'(?:put|place) (?:the )?(.+?) (in|on top of|on the top of|on|into|inside)'
                        r'(?: (?:the )?(.+))?', part)
    if not step:
        return None
    obj, how, target = step.groups()
    how = {'into': 'in', 'inside': 'in', 'on the top of': 'on top of'}.get(how, how)
    if target in (None, 'it', 'inside'):  # what the step before opened or turned on
        if previous is None:
            return None
        target = previous
    return ('place', obj, how, _object(target))


def kinds(text):
    """
    Read an instruction as its steps (see the kinds above), or None if a part is not understood.

    >>> kinds('turn on the stove and put the moka pot on it')
    [('turn_on', 'stove'), ('place', 'moka pot', 'on', 'stove')]
    """
    text = ' '.join(text.lower().strip().rstrip('.').split())
    both = re.fullmatch(r'put both the (.+?) and the (.+?) (in|on) the (.+)', text)
    if both:
        a, b, how, target = both.groups()
        return [('place', a, how, target), ('place', b, how, target)]
    pick = re.fullmatch(r'pick (?:up )?the (.+?) and place it (in|on|on top of) the (.+)', text)
    if pick:
        return [('place', *pick.groups())]
    steps, previous = [], None
    # a new clause starts at a verb after 'and' (any verb: an unknown one is refused below)
    for part in re.split(r' and (?=put |place |close |open |turn |push |(?!the )\w+ the )', text):
        step = None
        if part.startswith('open '):
            step = _open(part)
            if step:
                previous = f'{step[1]} drawer of the {step[2]}'
        elif part.startswith('close '):
            target = _object(part[len('close '):])
            if target == 'it':
                target = previous
            step = ('close', target) if target else None
        elif part.startswith('turn on '):
            step = ('turn_on', _object(part[len('turn on '):]))
            previous = step[1]
        elif part.startswith('push '):
            found = re.fullmatch(r'push (?:the )?(.+?) to the (front|back|left|right)'
                                 r'(?: side)? of (?:the )?(.+)', part)
            step = ('push', found.group(1), found.group(2), found.group(3)) if found else None
        elif part.startswith(('put ', 'place ')):
            step = _place(part, previous)
            if step:
                previous = step[3]
        if step is None:
            return None
        steps.append(step)
    return steps

"""The LIBERO programs read every libero_goal / libero_10 instruction as steps of known kinds."""

from importlib import resources

import pytest

# The benchmark's instructions of libero_goal and libero_10, tasks 0-9 (the BDDL language).
INSTRUCTIONS = {
    'open the middle layer of the drawer': [('open', 'middle', 'drawer')],
    'put the bowl on the stove': [('place', 'bowl', 'on', 'stove')],
    'put the wine bottle on the top of the drawer': [('place', 'wine bottle', 'on top of',
                                                      'drawer')],
    'open the top layer of the drawer and put the bowl inside': [
        ('open', 'top', 'drawer'), ('place', 'bowl', 'in', 'top drawer of the drawer')],
    'put the bowl on the top of the drawer': [('place', 'bowl', 'on top of', 'drawer')],
    'push the plate to the front of the stove': [('push', 'plate', 'front', 'stove')],
    'put the cream cheese on the bowl': [('place', 'cream cheese', 'on', 'bowl')],
    'turn on the stove': [('turn_on', 'stove')],
    'put the bowl on the plate': [('place', 'bowl', 'on', 'plate')],
    'put the wine bottle on the rack': [('place', 'wine bottle', 'on', 'rack')],
    'put both the alphabet soup and the tomato sauce in the basket': [
        ('place', 'alphabet soup', 'in', 'basket'), ('place', 'tomato sauce', 'in', 'basket')],
    'put both the cream cheese box and the butter in the basket': [
        ('place', 'cream cheese box', 'in', 'basket'), ('place', 'butter', 'in', 'basket')],
    'turn on the stove and put the moka pot on it': [
        ('turn_on', 'stove'), ('place', 'moka pot', 'on', 'stove')],
    'put the black bowl in the bottom drawer of the cabinet and close it': [
        ('place', 'black bowl', 'in', 'bottom drawer of the cabinet'),
        ('close', 'bottom drawer of the cabinet')],
    'put the white mug on the left plate and put the yellow and white mug on the right plate': [
        ('place', 'white mug', 'on', 'left plate'),
        ('place', 'yellow and white mug', 'on', 'right plate')],
    'pick up the book and place it in the back compartment of the caddy': [
        ('place', 'book', 'in', 'back compartment of the caddy')],
    'put the white mug on the plate and put the chocolate pudding to the right of the plate': [
        ('place', 'white mug', 'on', 'plate'),
        ('place', 'chocolate pudding', 'right of', 'plate')],
    'put both the alphabet soup and the cream cheese box in the basket': [
        ('place', 'alphabet soup', 'in', 'basket'), ('place', 'cream cheese box', 'in',
                                                     'basket')],
    'put both moka pots on the stove': [('place_all', 'moka pot', 'on', 'stove')],
    'put the yellow and white mug in the microwave and close it': [
        ('place', 'yellow and white mug', 'in', 'microwave'), ('close', 'microwave')],
}


@pytest.fixture(scope='module')
def kinds():
    """Return ``kinds`` from the programs' shared cell, run as the script planner would."""
    source = (resources.files('pyrua_agent') / 'programs' / 'libero' / '_kinds.py').read_text()
    namespace = {}
    exec(compile(source, '_kinds.py', 'exec'), namespace)  # pure text: it needs no robot
    return namespace['kinds']


@pytest.mark.parametrize('text', sorted(INSTRUCTIONS))
def test_each_goal_and_10_instruction_maps_to_its_steps(kinds, text):
    assert kinds(text) == INSTRUCTIONS[text]


def test_wording_is_normalised_and_unknown_verbs_are_refused(kinds):
    assert kinds('  Turn on the stove. ') == [('turn_on', 'stove')]
    assert kinds('put the bowl on the plate and wipe the table') is None
    assert kinds('close it') is None  # nothing opened before: 'it' names nothing


def test_the_goal_and_10_programs_run_the_kinds():
    folder = resources.files('pyrua_agent') / 'programs' / 'libero'
    for suite in ('libero_goal', 'libero_10'):
        text = (folder / f'{suite}.py').read_text()
        assert '# %% [include] _kinds.py' in text and 'solve_steps(instruction)' in text

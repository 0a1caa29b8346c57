from pyrua_sim.evaluator import StageTracker
from pyrua_sim.tasks import get_task

TASK = get_task('swap_blocks')
LAYOUT = TASK.sample_layout(0, 0)
(A,), (B,) = LAYOUT.with_role('a'), LAYOUT.with_role('b')
Z = A.pose[2]


def _at(spot, dx=0.0):
    return (spot.xy[0] + dx, spot.xy[1], Z)


def test_instruction_names_both_blocks():
    assert LAYOUT.instruction == (f'Swap the positions of the {A.colour} block and the '
                                  f'{B.colour} block.')


def test_exchanged_blocks_succeed(make_state):
    state = make_state(LAYOUT, {A.name: _at(B, 0.015), B.name: _at(A, -0.015)})
    assert TASK.success(LAYOUT, state, frozenset())


def test_near_misses_fail(make_state):
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {A.name: _at(B, 0.025), B.name: _at(A)}),
                            frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT), frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {A.name: _at(B), B.name: _at(A)},
                                               released=False), frozenset())


def test_staged_reward_is_monotonic(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    parked = (0.0, -0.25, Z)
    path = [
        ({A.name: parked}, False),
        ({A.name: parked, B.name: _at(A)}, True),
        ({A.name: _at(B), B.name: _at(A)}, False),
        ({A.name: _at(B), B.name: _at(A)}, True),
    ]
    scores = [tracker.observe(make_state(LAYOUT, m, released=r)) for m, r in path]
    assert scores == [0.2, 0.5, 0.8, 1.0]

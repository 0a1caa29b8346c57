from pyrua_sim.evaluator import StageTracker
from pyrua_sim.tasks import get_task

TASK = get_task('stack_blocks')
LAYOUT = TASK.sample_layout(0, 0)
(UPPER,), (LOWER,) = LAYOUT.with_role('upper'), LAYOUT.with_role('lower')
LX, LY, LZ = LOWER.pose[:3]


def test_instruction_names_both_blocks():
    assert LAYOUT.instruction == f'Put the {UPPER.colour} block on the {LOWER.colour} block.'


def test_block_on_block_within_tolerance_succeeds(make_state):
    state = make_state(LAYOUT, {UPPER.name: (LX + 0.010, LY - 0.010, LZ + 0.04)})
    assert TASK.success(LAYOUT, state, frozenset())


def test_near_misses_fail(make_state):
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {UPPER.name: (LX + 0.016, LY, LZ + 0.04)}),
                            frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {UPPER.name: (LX, LY, LZ + 0.06)}),
                            frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {UPPER.name: (LX, LY, LZ + 0.04)},
                                               released=False), frozenset())


def test_staged_reward_is_monotonic(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    ux, uy, uz = UPPER.pose[:3]
    path = [
        {UPPER.name: (ux, uy, uz + 0.08)},
        {UPPER.name: (LX + 0.02, LY, LZ + 0.08)},
        {UPPER.name: (LX, LY, LZ + 0.04)},
    ]
    scores = [tracker.observe(make_state(LAYOUT, m, released=False)) for m in path]
    scores.append(tracker.observe(make_state(LAYOUT, path[-1])))
    assert scores == [0.3, 0.6, 0.8, 1.0]

from pyrua_sim.evaluator import StageTracker
from pyrua_sim.tasks import get_task

TASK = get_task('stack_three')
LAYOUT = TASK.sample_layout(0, 0)
(BOTTOM,), (MIDDLE,), (TOP,) = (LAYOUT.with_role(r) for r in ('bottom', 'middle', 'top'))
X, Y, Z = BOTTOM.pose[:3]


def test_instruction_gives_the_order_bottom_first():
    text = LAYOUT.instruction
    assert text.index(BOTTOM.colour) < text.index(MIDDLE.colour) < text.index(TOP.colour)


def test_tower_in_named_order_succeeds(make_state):
    state = make_state(LAYOUT, {MIDDLE.name: (X + 0.01, Y, Z + 0.04),
                                TOP.name: (X + 0.01, Y + 0.015, Z + 0.08)})
    assert TASK.success(LAYOUT, state, frozenset())


def test_near_misses_fail(make_state):
    swapped = make_state(LAYOUT, {TOP.name: (X, Y, Z + 0.04), MIDDLE.name: (X, Y, Z + 0.08)})
    assert not TASK.success(LAYOUT, swapped, frozenset())
    leaning = make_state(LAYOUT, {MIDDLE.name: (X, Y, Z + 0.04),
                                  TOP.name: (X + 0.025, Y, Z + 0.08)})
    assert not TASK.success(LAYOUT, leaning, frozenset())
    held = make_state(LAYOUT, {MIDDLE.name: (X, Y, Z + 0.04), TOP.name: (X, Y, Z + 0.08)},
                      released=False)
    assert not TASK.success(LAYOUT, held, frozenset())


def test_staged_reward_is_monotonic(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    mx, my, mz = MIDDLE.pose[:3]
    tx, ty, tz = TOP.pose[:3]
    on = (X, Y, Z + 0.04)
    path = [
        ({MIDDLE.name: (mx, my, mz + 0.1)}, False),
        ({MIDDLE.name: on}, True),
        ({MIDDLE.name: on, TOP.name: (tx, ty, tz + 0.1)}, False),
        ({MIDDLE.name: on, TOP.name: (X, Y, Z + 0.08)}, False),
        ({}, True),
        ({MIDDLE.name: on, TOP.name: (X, Y, Z + 0.08)}, True),
    ]
    scores = [tracker.observe(make_state(LAYOUT, m, released=r)) for m, r in path]
    assert scores == [0.2, 0.5, 0.7, 0.85, 0.85, 1.0]

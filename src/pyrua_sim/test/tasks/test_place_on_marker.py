from pyrua_sim.evaluator import StageTracker
from pyrua_sim.tasks import get_task

TASK = get_task('place_on_marker')
LAYOUT = TASK.sample_layout(0, 0)
(BLOCK,), (GOAL,) = LAYOUT.with_role('target'), LAYOUT.with_role('goal')
Z = BLOCK.pose[2]


def test_instruction_names_block_and_marker():
    assert LAYOUT.instruction == f'Put the {BLOCK.colour} block on the {GOAL.colour} marker.'


def test_block_within_one_cm_succeeds(make_state):
    x, y = GOAL.xy
    assert TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (x + 0.006, y + 0.006, Z)}),
                        frozenset())


def test_near_misses_fail(make_state):
    x, y = GOAL.xy
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (x + 0.011, y, Z)}),
                            frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (x, y, Z)}, released=False),
                            frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (x, y, Z + 0.03)}),
                            frozenset())


def test_staged_reward_is_monotonic(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    x, y = GOAL.xy
    bx, by = BLOCK.xy
    path = [(bx, by, Z + 0.05), (x + 0.02, y, Z + 0.05), (x, y, Z), (bx, by, Z)]
    scores = [tracker.observe(make_state(LAYOUT, {BLOCK.name: p}, released=False)) for p in path]
    scores.append(tracker.observe(make_state(LAYOUT, {BLOCK.name: (x, y, Z)})))
    assert scores == [0.3, 0.6, 0.8, 0.8, 1.0]

from pyrua_sim.evaluator import StageTracker
from pyrua_sim.tasks import get_task

TASK = get_task('push_to_zone')
LAYOUT = TASK.sample_layout(0, 0)
(BLOCK,), (GOAL,), (DECOY,) = (LAYOUT.with_role(r) for r in ('target', 'goal', 'decoy'))
Z = BLOCK.pose[2]


def test_instruction_names_block_and_zone():
    assert LAYOUT.instruction == f'Push the {BLOCK.colour} block into the {GOAL.colour} zone.'


def test_block_inside_zone_succeeds_even_with_closed_gripper(make_state):
    x, y = GOAL.xy
    assert TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (x + 0.04, y, Z)},
                                           released=False), frozenset())


def test_near_misses_fail(make_state):
    x, y = GOAL.xy
    # just outside the 12 cm mat, even at its rotated corner direction
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (x + 0.09, y, Z)}),
                            frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (x, y, Z + 0.05)}),
                            frozenset())
    dx, dy = DECOY.xy
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (dx, dy, Z)}), frozenset())


def test_staged_reward_follows_the_distance_to_the_zone(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    start, goal = BLOCK.xy, GOAL.xy
    scores = []
    for frac in (0.0, 0.2, 0.6, 0.1, 1.0):
        x, y = start + frac * (goal - start)
        scores.append(tracker.observe(make_state(LAYOUT, {BLOCK.name: (x, y, Z)})))
    assert scores == [0.0, 0.3, 0.6, 0.6, 1.0]

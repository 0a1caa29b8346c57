from pyrua_sim.evaluator import StageTracker
from pyrua_sim.layout import TABLE_Z
from pyrua_sim.tasks import get_task

TASK = get_task('pick_place')
LAYOUT = TASK.sample_layout(0, 0)
(BLOCK,), (GOAL,), (DECOY,) = (LAYOUT.with_role(r) for r in ('target', 'goal', 'decoy'))
IN_BOWL_Z = TABLE_Z + 0.006 + 0.02


def test_instruction_names_block_and_goal_bowl():
    assert LAYOUT.instruction == f'Put the {BLOCK.colour} block in the {GOAL.colour} bowl.'


def test_block_resting_in_goal_bowl_released_succeeds(make_state):
    x, y = GOAL.xy
    state = make_state(LAYOUT, {BLOCK.name: (x + 0.01, y - 0.01, IN_BOWL_Z)})
    assert TASK.success(LAYOUT, state, frozenset())


def test_near_misses_fail(make_state):
    x, y = GOAL.xy
    in_bowl = {BLOCK.name: (x, y, IN_BOWL_Z)}
    assert not TASK.success(LAYOUT, make_state(LAYOUT, in_bowl, released=False), frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (x + 0.05, y, IN_BOWL_Z)}),
                            frozenset())
    dx, dy = DECOY.xy
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (dx, dy, IN_BOWL_Z)}),
                            frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT), frozenset())


def test_staged_reward_rises_through_lift_carry_place(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    bx, by, bz = BLOCK.pose[:3]
    gx, gy = GOAL.xy
    path = [
        make_state(LAYOUT),
        make_state(LAYOUT, {BLOCK.name: (bx, by, bz + 0.1)}, released=False),
        make_state(LAYOUT, {BLOCK.name: (gx, gy, bz + 0.1)}, released=False),
        make_state(LAYOUT, {BLOCK.name: (gx, gy, IN_BOWL_Z)}, released=False),
        make_state(LAYOUT, {BLOCK.name: (bx, by, bz)}, released=True),
        make_state(LAYOUT, {BLOCK.name: (gx, gy, IN_BOWL_Z)}),
    ]
    scores = [tracker.observe(s) for s in path]
    assert scores == [0.0, 0.3, 0.6, 0.8, 0.8, 1.0]

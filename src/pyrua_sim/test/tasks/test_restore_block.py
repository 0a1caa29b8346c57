from pyrua_sim.evaluator import StageTracker
from pyrua_sim.layout import TABLE_Z
from pyrua_sim.tasks import get_task

TASK = get_task('restore_block')
LAYOUT = TASK.sample_layout(0, 0)
(BLOCK,), (BOWL,) = LAYOUT.with_role('target'), LAYOUT.with_role('goal')
X, Y, Z = BLOCK.pose[:3]
IN_BOWL = (BOWL.xy[0], BOWL.xy[1], TABLE_Z + 0.006 + 0.02)


def test_instruction_names_block_bowl_and_the_return():
    assert LAYOUT.instruction == (f'Put the {BLOCK.colour} block in the {BOWL.colour} bowl, '
                                  'then put it back where it started.')


def test_back_at_start_after_the_bowl_succeeds(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    tracker.observe(make_state(LAYOUT, {BLOCK.name: IN_BOWL}))
    back = make_state(LAYOUT, {BLOCK.name: (X + 0.01, Y - 0.01, Z)})
    assert tracker.success(back)
    assert tracker.observe(back) == 1.0


def test_near_misses_fail(make_state):
    # never went to the bowl: the block simply sitting at its start is not success
    assert not TASK.success(LAYOUT, make_state(LAYOUT), frozenset())
    tracker = StageTracker(TASK, LAYOUT)
    tracker.observe(make_state(LAYOUT, {BLOCK.name: IN_BOWL}))
    assert not tracker.success(make_state(LAYOUT, {BLOCK.name: (X + 0.016, Y, Z)}))
    assert not tracker.success(make_state(LAYOUT, {BLOCK.name: (X, Y, Z)}, released=False))


def test_staged_reward_is_monotonic(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    bx, by = BOWL.xy
    path = [
        {BLOCK.name: (X, Y, Z + 0.08)},
        {BLOCK.name: (bx, by, Z + 0.08)},
        {BLOCK.name: IN_BOWL},
        {BLOCK.name: (bx + 0.1, by, Z + 0.08)},
        {BLOCK.name: (X + 0.02, Y, Z + 0.05)},
    ]
    scores = [tracker.observe(make_state(LAYOUT, m, released=False)) for m in path]
    scores.append(tracker.observe(make_state(LAYOUT, {BLOCK.name: (X, Y, Z)})))
    assert scores == [0.2, 0.35, 0.5, 0.7, 0.85, 1.0]

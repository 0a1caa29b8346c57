from pyrua_sim.evaluator import StageTracker
from pyrua_sim.layout import TABLE_Z
from pyrua_sim.tasks import get_task

TASK = get_task('handover')
LAYOUT = TASK.sample_layout(0, 0)
(BLOCK,), (BOWL,) = LAYOUT.with_role('target'), LAYOUT.with_role('goal')
X, Y, Z = BLOCK.pose[:3]
IN_BOWL = (BOWL.xy[0], BOWL.xy[1], TABLE_Z + 0.006 + 0.02)


def test_instruction_names_block_and_bowl():
    assert LAYOUT.instruction == f'Put the {BLOCK.colour} block in the {BOWL.colour} bowl.'


def test_block_in_far_bowl_released_succeeds(make_state):
    assert TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: IN_BOWL}), frozenset())


def test_near_misses_fail(make_state):
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: IN_BOWL}, released=False),
                            frozenset())
    bx, by, bz = IN_BOWL
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (bx, by, bz + 0.04)}),
                            frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (0.0, -0.1, Z)}),
                            frozenset())


def test_staged_reward_is_monotonic(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    bx, by, _ = IN_BOWL
    path = [(X, Y, Z + 0.1), (0.05, -0.15, Z + 0.1), (bx, by, Z + 0.1), IN_BOWL]
    scores = [tracker.observe(make_state(LAYOUT, {BLOCK.name: p}, released=False)) for p in path]
    scores.append(tracker.observe(make_state(LAYOUT, {BLOCK.name: IN_BOWL})))
    assert scores == [0.25, 0.5, 0.7, 0.85, 1.0]

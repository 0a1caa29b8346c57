from pyrua_sim.evaluator import StageTracker
from pyrua_sim.tasks import get_task

TASK = get_task('lift_object')
LAYOUT = TASK.sample_layout(0, 0)
(BLOCK,) = LAYOUT.with_role('target')
X, Y, Z = BLOCK.pose[:3]


def test_instruction_names_the_block():
    assert LAYOUT.instruction == f'Lift the {BLOCK.colour} block 10 cm and hold it.'


def test_block_held_ten_cm_up_succeeds(make_state):
    state = make_state(LAYOUT, {BLOCK.name: (X, Y, Z + 0.101)}, released=False)
    assert TASK.success(LAYOUT, state, frozenset())


def test_near_misses_fail(make_state):
    low = make_state(LAYOUT, {BLOCK.name: (X, Y, Z + 0.09)}, released=False)
    assert not TASK.success(LAYOUT, low, frozenset())
    # 10 cm up but both grippers open: not held (e.g. left lying on something)
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {BLOCK.name: (X, Y, Z + 0.11)}),
                            frozenset())
    (other, _) = LAYOUT.with_role('other')
    ox, oy, oz = other.pose[:3]
    wrong = make_state(LAYOUT, {other.name: (ox, oy, oz + 0.12)}, released=False)
    assert not TASK.success(LAYOUT, wrong, frozenset())


def test_staged_reward_is_monotonic(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    heights = [0.0, 0.03, 0.06, 0.0, 0.12]
    scores = [tracker.observe(make_state(LAYOUT, {BLOCK.name: (X, Y, Z + h)}, released=False))
              for h in heights]
    assert scores == [0.0, 0.4, 0.7, 0.7, 1.0]

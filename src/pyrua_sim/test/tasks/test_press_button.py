from pyrua_sim.evaluator import StageTracker
from pyrua_sim.layout import BUTTON_BASE_HEIGHT_M, TABLE_Z
from pyrua_sim.tasks import get_task

TASK = get_task('press_button')
LAYOUT = TASK.sample_layout(0, 0)
(TARGET,) = LAYOUT.with_role('target')
OTHER = LAYOUT.with_role('other')[0]
REST_Z = TABLE_Z + BUTTON_BASE_HEIGHT_M


def _pressed(button, depth_m):
    return {button.name: (button.xy[0], button.xy[1], REST_Z - depth_m)}


def test_instruction_names_the_button():
    assert LAYOUT.instruction == f'Press the {TARGET.colour} button.'


def test_a_press_counts_even_after_the_button_springs_back(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    tracker.observe(make_state(LAYOUT, _pressed(TARGET, 0.006)))
    assert tracker.success(make_state(LAYOUT))
    assert tracker.score() == 1.0


def test_near_misses_fail(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    tracker.observe(make_state(LAYOUT, _pressed(TARGET, 0.0045)))
    assert not tracker.success(make_state(LAYOUT))
    wrong = StageTracker(TASK, LAYOUT)
    wrong.observe(make_state(LAYOUT, _pressed(OTHER, 0.008)))
    wrong.observe(make_state(LAYOUT, _pressed(TARGET, 0.008)))
    assert not wrong.success(make_state(LAYOUT))
    assert wrong.score() == 0.0


def test_staged_reward_is_monotonic(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    depths = [0.0, 0.002, 0.004, 0.0, 0.007]
    scores = [tracker.observe(make_state(LAYOUT, _pressed(TARGET, d))) for d in depths]
    assert scores == [0.0, 0.3, 0.6, 0.6, 1.0]

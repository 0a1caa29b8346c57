import math

from pyrua_sim.evaluator import StageTracker
from pyrua_sim.layout import TABLE_Z
from pyrua_sim.tasks import get_task

TASK = get_task('insert_peg')
LAYOUT = TASK.sample_layout(0, 0)
(PEG,), (HOLE,) = LAYOUT.with_role('target'), LAYOUT.with_role('goal')
HX, HY = HOLE.xy
SEATED_Z = TABLE_Z + 0.035


def _in_hole_frame(dx, dy):
    w, _, _, z = HOLE.pose[3:]
    yaw = 2 * math.atan2(z, w)
    return (HX + dx * math.cos(yaw) - dy * math.sin(yaw),
            HY + dx * math.sin(yaw) + dy * math.cos(yaw))


def test_instruction_names_the_peg_and_the_hole():
    assert LAYOUT.instruction == f'Insert the {PEG.colour} peg into the hole.'


def test_peg_seated_in_hole_succeeds(make_state):
    x, y = _in_hole_frame(0.001, -0.001)
    assert TASK.success(LAYOUT, make_state(LAYOUT, {PEG.name: (x, y, SEATED_Z)}), frozenset())


def test_near_misses_fail(make_state):
    x, y = _in_hole_frame(0.018, 0.0)
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {PEG.name: (x, y, SEATED_Z)}),
                            frozenset())
    # resting on top of the fixture: bottom at the hole top, not below it
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {PEG.name: (HX, HY, SEATED_Z + 0.04)}),
                            frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT, {PEG.name: (HX, HY, SEATED_Z)},
                                               released=False), frozenset())


def test_staged_reward_is_monotonic(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    px, py, pz = PEG.pose[:3]
    path = [(px, py, pz + 0.1), (HX, HY, SEATED_Z + 0.1), (HX, HY, SEATED_Z)]
    scores = [tracker.observe(make_state(LAYOUT, {PEG.name: p}, released=False)) for p in path]
    scores.append(tracker.observe(make_state(LAYOUT, {PEG.name: path[-1]})))
    assert scores == [0.3, 0.6, 0.8, 1.0]

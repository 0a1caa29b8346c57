from pyrua_sim.evaluator import StageTracker
from pyrua_sim.layout import TABLE_Z
from pyrua_sim.tasks import get_task

TASK = get_task('sort_by_color')
LAYOUT = TASK.sample_layout(0, 0)
BOWLS = {b.colour: b for b in LAYOUT.with_role('bowl')}
BLOCKS = LAYOUT.with_role('block')
IN_BOWL_Z = TABLE_Z + 0.006 + 0.02


def _into(blocks, wrong=False):
    moves = {}
    for k, blk in enumerate(blocks):
        colour = [c for c in BOWLS if (c != blk.colour) == wrong][0]
        x, y = BOWLS[colour].xy
        moves[blk.name] = (x + (0.021 if k % 2 else -0.021), y, IN_BOWL_Z)
    return moves


def test_four_blocks_of_two_colours_and_two_bowls():
    assert len(BLOCKS) == 4 and len(BOWLS) == 2
    assert sorted(b.colour for b in BLOCKS) == sorted(list(BOWLS) * 2)
    assert all(c in LAYOUT.instruction for c in BOWLS)


def test_all_blocks_in_their_bowls_succeeds(make_state):
    assert TASK.success(LAYOUT, make_state(LAYOUT, _into(BLOCKS)), frozenset())


def test_near_misses_fail(make_state):
    assert not TASK.success(LAYOUT, make_state(LAYOUT, _into(BLOCKS[:3])), frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT, _into(BLOCKS, wrong=True)), frozenset())
    assert not TASK.success(LAYOUT, make_state(LAYOUT, _into(BLOCKS), released=False),
                            frozenset())


def test_staged_reward_counts_sorted_blocks_and_never_drops(make_state):
    tracker = StageTracker(TASK, LAYOUT)
    scores = [tracker.observe(make_state(LAYOUT, _into(BLOCKS[:n]), released=False))
              for n in (1, 2, 3, 1, 4)]
    scores.append(tracker.observe(make_state(LAYOUT, _into(BLOCKS))))
    assert [round(s, 2) for s in scores] == [0.2, 0.4, 0.6, 0.6, 0.8, 1.0]

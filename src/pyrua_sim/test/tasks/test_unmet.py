"""Every task says which condition of its success check fails, and by how much (issue 24)."""

import numpy as np
from pyrua_sim.layout import TABLE_Z
from pyrua_sim.tasks import get_task, TASKS
import pytest


@pytest.mark.parametrize('name', sorted(TASKS))
def test_unmet_is_empty_exactly_when_the_task_succeeds(name, make_state):
    task = get_task(name)
    rng = np.random.default_rng(24)
    for index in range(3):
        layout = task.sample_layout(0, index)
        start = make_state(layout)
        why = task.unmet(layout, start, frozenset())
        assert not task.success(layout, start, frozenset()) and why, (name, why)
        movable = [o for o in layout.objects if o.kind not in ('bowl', 'zone', 'marker',
                                                               'hole', 'button')]
        for _ in range(40):
            # Drop movable objects onto, into or beside the others' start places, or lift them.
            moves = {}
            for obj in movable:
                others = [o for o in layout.objects if o is not obj]
                xy = others[rng.integers(len(others))].xy + rng.normal(0.0, 0.01, 2)
                lift = rng.choice([0.0, 0.006, 0.04, 0.08, 0.11])
                moves[obj.name] = (*xy, TABLE_Z + obj.size[2] / 2 + lift)
            state = make_state(layout, moves, released=bool(rng.integers(2)))
            history = task.events(layout, state)
            ok, why = task.success(layout, state, history), task.unmet(layout, state, history)
            assert ok == (not why), (name, ok, why)
    assert all(isinstance(line, str) and line for line in why)


def test_sort_by_color_says_which_block_misses_and_that_stacked_ones_do_not_count(
        make_state):
    task = get_task('sort_by_color')
    layout = task.sample_layout(0, 0)
    bowls = {b.colour: b for b in layout.with_role('bowl')}
    moves = {}
    for blk in layout.with_role('block'):
        x, y = bowls[blk.colour].xy
        first = blk.name.endswith('_0')
        moves[blk.name] = (x, y, TABLE_Z + 0.006 + 0.02 + (0.0 if first else 0.04))
    why = task.unmet(layout, make_state(layout, moves), frozenset())
    assert len(why) == 2, why  # the two blocks on top of the others
    for line, colour in zip(why, bowls):
        assert line.startswith(f'{colour} block: centre 40 mm above resting on the {colour} '
                               "bowl's floor vs +-8 mm")
        assert 'blocks side by side, not stacked' in line
    far = dict(moves, **{layout.with_role('block')[1].name: (0.0, -0.2, TABLE_Z + 0.02)})
    line = task.unmet(layout, make_state(layout, far, released=False), frozenset())
    assert any(r.endswith("bowl's axis vs <= 45 mm") for r in line)
    assert line[-1].startswith('gripper not released: right (40 mm) open')

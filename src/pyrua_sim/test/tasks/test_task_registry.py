import numpy as np
from pyrua_sim.layout import (
    arm_distance,
    FOOTPRINT_RADIUS_M,
    MIN_GAP_M,
    reachable_arms,
    UnreachableLayoutError,
)
from pyrua_sim.tasks import DIMENSIONS, get_task, make_suite, sample_layout, TaskDef, TASKS
import pytest

EXPECTED = {
    'pick_place': 'Generalization', 'lift_object': 'Generalization',
    'push_to_zone': 'Generalization', 'stack_blocks': 'Precision',
    'place_on_marker': 'Precision', 'insert_peg': 'Precision', 'stack_three': 'Long-Horizon',
    'sort_by_color': 'Long-Horizon', 'swap_blocks': 'Memory', 'restore_block': 'Memory',
    'handover': 'Open', 'press_button': 'Open',
}
TOUCHED_KINDS = {'block', 'peg', 'bowl', 'zone', 'marker', 'hole', 'button'}


def test_registry_holds_the_twelve_tasks_with_their_dimensions():
    assert {name: task.dimension for name, task in TASKS.items()} == EXPECTED
    assert set(EXPECTED.values()) == set(DIMENSIONS)


@pytest.mark.parametrize('name', sorted(EXPECTED))
def test_same_seed_and_index_give_identical_layouts(name):
    assert sample_layout(name, 7, 3) == sample_layout(name, 7, 3)
    assert sample_layout(name, 7, 3) != sample_layout(name, 7, 4)
    assert sample_layout(name, 7, 3) != sample_layout(name, 8, 3)


@pytest.mark.parametrize('name', sorted(EXPECTED))
def test_layouts_are_reachable_and_apart(name):
    for seed in (0, 1, 999):
        for index in (0, 11, 24, 25, 49):
            layout = sample_layout(name, seed, index)
            objs = layout.objects
            for i, a in enumerate(objs):
                if a.kind in TOUCHED_KINDS:
                    assert reachable_arms(a.xy), f'{a} of {layout} is out of reach'
                for b in objs[i + 1:]:
                    gap = np.linalg.norm(a.xy - b.xy) - FOOTPRINT_RADIUS_M[a.kind] \
                        - FOOTPRINT_RADIUS_M[b.kind]
                    assert gap >= MIN_GAP_M - 1e-9, f'{a} and {b} overlap in {layout}'


@pytest.mark.parametrize('name', sorted(EXPECTED))
def test_instruction_names_every_task_object_by_colour_and_noun(name):
    layout = sample_layout(name, 3, 0)
    task_objects = [o for o in layout.objects if o.role not in ('distractor', 'decoy', 'other')]
    for spec in task_objects:
        assert spec.colour in layout.instruction or spec.kind == 'hole', layout.instruction


def test_only_generalization_tasks_randomize_the_second_half():
    for task in TASKS.values():
        plain, randomized = task.sample_layout(0, 24), task.sample_layout(0, 25)
        assert not plain.appearance.randomized
        assert randomized.appearance.randomized == (task.dimension == 'Generalization')
        if task.dimension == 'Generalization':
            distractors = randomized.with_role('distractor')
            assert 1 <= len(distractors) <= 3
            assert all(d.name.startswith('obj/distractor_') for d in distractors)
            assert max(randomized.appearance.table_rgb) - min(randomized.appearance.table_rgb) \
                < 0.2, 'randomized table colour must stay low-saturation'


def test_handover_starts_out_of_right_reach_and_bowl_out_of_left_reach():
    for index in range(50):
        layout = sample_layout('handover', 5, index)
        (block,), (bowl,) = layout.with_role('target'), layout.with_role('goal')
        assert arm_distance('right', block.xy) > 0.62 and 'left' in reachable_arms(block.xy)
        assert arm_distance('left', bowl.xy) > 0.62 and 'right' in reachable_arms(bowl.xy)


def test_unknown_task_name_is_refused_with_a_suggestion():
    with pytest.raises(ValueError, match="unknown task 'pick_plce'; did you mean 'pick_place'"):
        get_task('pick_plce')


@pytest.mark.parametrize('seed, index, match', [
    (1000, 0, 'seed 1000 vs valid range 0..999'),
    (-1, 0, 'seed -1 vs valid range 0..999'),
    (0, 50, 'layout index 50 vs valid range 0..49'),
])
def test_out_of_range_seed_or_index_is_refused(seed, index, match):
    with pytest.raises(ValueError, match=match):
        sample_layout('pick_place', seed, index)


def test_a_task_whose_layout_cannot_be_placed_raises_unreachable_layout():
    from pyrua_sim.layout import make_object, Placer

    def crowded(rng):
        placer = Placer(rng)
        return tuple(make_object('bowl', 'red', placer.place('bowl'), 'goal', name=f'b{k}')
                     for k in range(40))

    task = TaskDef('crowded', 'Open', crowded, lambda objs: '', lambda *a: False,
                   lambda *a: 0.0)
    with pytest.raises(UnreachableLayoutError, match="task 'crowded' seed 0 index 0: no valid"):
        task.sample_layout(0, 0)


def test_suite_lists_tasks_by_seeds_by_layouts():
    suite = make_suite(dimension='Memory', seeds=(0, 1), layouts=3)
    cases = list(suite)
    assert len(cases) == len(suite) == 2 * 2 * 3
    assert {c.task for c in cases} == {'swap_blocks', 'restore_block'}
    assert len(make_suite()) == 12 * 3 * 50
    with pytest.raises(ValueError, match='unknown task'):
        make_suite(tasks=('nope',))
    with pytest.raises(ValueError, match='layout index 50'):
        make_suite(layouts=51)

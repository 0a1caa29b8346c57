"""The eval spec: parsing, refusals and the episode list."""

import dataclasses

from pyrua_lab.evaluation import expand, load_spec, parse_spec
from pyrua_lab.evaluation.jobs import episode_id, resolve_tasks
import pytest

SPEC = {
    'name': 'demo',
    'tasks': ['pick_place', 'stack_*'],
    'seeds': [0, 1],
    'layouts': ['0-1', 30],
    'interfaces': {
        'code': {'planner': 'code', 'endpoint': {'base_url': 'http://127.0.0.1:9/v1',
                                                 'model': 'gpt-5-mini'}},
        'script': {'planner': 'script'},
    },
    'budgets': {'max_llm_calls': 12},
    'labels': {'model': 'gpt-5-mini'},
}


def test_spec_expands_to_tasks_x_seeds_x_layouts_x_interfaces():
    spec = parse_spec(SPEC)
    assert spec.layouts == (0, 1, 30)
    assert spec.budgets.max_llm_calls == 12
    jobs = expand(spec)
    assert resolve_tasks(spec.tasks) == ('pick_place', 'stack_blocks', 'stack_three')
    assert len(jobs) == 3 * 2 * 3 * 2
    assert len({j.episode_id for j in jobs}) == len(jobs)
    assert [j.episode_id for j in expand(parse_spec(SPEC))] == [j.episode_id for j in jobs]
    first = jobs[0]
    assert first.episode_id == 'code.pick_place.s0.l0'
    assert first.describe()['labels'] == {'model': 'gpt-5-mini'}
    assert first.describe()['model'] == 'gpt-5-mini'


def test_generalization_layouts_are_split_into_halves():
    script = {'s': {'planner': 'script'}}
    spec = parse_spec({**SPEC, 'tasks': ['pick_place'], 'interfaces': script})
    halves = {j.layout: j.half for j in expand(spec)}
    assert halves == {0: 'standard', 1: 'standard', 30: 'randomized'}
    assert {j.dimension for j in expand(spec)} == {'Generalization'}


def test_a_dimension_entry_names_all_its_tasks():
    from pyrua_sim.tasks import TASKS

    precision = tuple(n for n, t in TASKS.items() if t.dimension == 'Precision')
    assert precision and resolve_tasks(('Precision',)) == precision


@pytest.mark.parametrize('change, message', [
    ({'taks': ['pick_place']}, "unknown key 'taks'; did you mean 'tasks'"),
    ({'tasks': ['pick_plac']}, "did you mean 'pick_place'"),
    ({'tasks': ['zzz_*']}, 'matches no built-in task'),
    ({'layouts': ['3-1']}, 'ends before it starts'),
    ({'layouts': [1, 1]}, 'lists a value twice'),
    ({'interfaces': {'a': {'planner': 'coder'}}}, "did you mean 'code'"),
    ({'interfaces': {'a b': {'planner': 'script'}}}, 'letters, digits'),
    ({'interfaces': {'r': {'planner': 'replay'}}}, 'needs source'),
    ({'interfaces': {'c': {'planner': 'code', 'endpoint': {'modle': 'x'}}}}, 'unknown field'),
    ({'interfaces': {'c': {'planner': 'code', 'plan': 'reference',
                           'endpoint': {'base_url': 'http://x/v1'}}}}, 'remove base_url'),
    ({'interfaces': {'s': {'planner': 'script', 'source': '{task}_{nope}.py'}}}, "'nope'"),
    ({'budgets': {'max_llm_call': 3}}, "did you mean 'max_llm_calls'"),
    ({'perception': 'colour'}, "unknown perception mode 'colour'; did you mean 'color'"),
    ({'perception': 'oracle'}, 'ground truth'),
    ({'sandbox': 'strict'}, "unknown sandbox mode 'strict'"),
    ({'interfaces': {'c': {'planner': 'code', 'prompt': {'worked_exampel': False}}}},
     "prompt: unknown key 'worked_exampel'; did you mean 'worked_example'"),
    ({'interfaces': {'c': {'planner': 'code', 'prompt': {'asks': 'no'}}}},
     "prompt: asks 'no' vs true or false"),
    ({'interfaces': {'c': {'planner': 'code', 'prompt': ['asks']}}}, 'vs a mapping of part'),
    ({'interfaces': {'s': {'planner': 'script', 'prompt': {'asks': False}}}},
     'asks no model, so it has no prompt'),
])
def test_spec_refuses_bad_input_and_says_what_to_do(change, message):
    with pytest.raises(ValueError, match=message.replace('(', r'\(')):
        expand(parse_spec({**SPEC, **change}))


def test_layout_out_of_range_is_refused_before_running():
    with pytest.raises(ValueError, match='index'):
        expand(parse_spec({**SPEC, 'layouts': [50]}))


def test_load_spec_reads_yaml_and_resolves_the_prices_file(tmp_path):
    (tmp_path / 'prices.yaml').write_text('models: {m: {input: 1, cached_input: 0.1, output: 2}}')
    path = tmp_path / 'spec.yaml'
    path.write_text('tasks: [pick_place]\ninterfaces: {s: {planner: script}}\n'
                    'prices: prices.yaml\n')
    spec = load_spec(path)
    assert spec.name == 'spec' and spec.prices == str((tmp_path / 'prices.yaml').resolve())
    assert spec.seeds == (0,) and spec.layouts == (0,)


def test_episode_ids_are_file_safe_for_benchmark_tasks():
    assert episode_id('code', 'libero_spatial/3', 0, 7) == 'code.libero_spatial~3.s0.l7'


@pytest.mark.parametrize('name', ['cost_model.yaml', 'code_vs_tools.yaml'])
def test_the_bundled_specs_parse_and_cover_the_whole_suite(name):
    from importlib import resources

    from pyrua_sim.tasks import TASKS

    spec = load_spec(str(resources.files('pyrua_lab') / 'evaluation' / 'specs' / name))
    jobs = expand(spec)
    assert {j.task for j in jobs} == set(TASKS)
    assert len(jobs) == len(TASKS) * len(spec.layouts) * len(spec.interfaces)


def test_an_interface_prompt_reaches_its_episodes_spec_and_record():
    from pyrua_agent.prompt import PromptVariant
    from pyrua_lab.evaluation.runner import episode_spec

    interfaces = {'bare': {'planner': 'code', 'prompt': {'worked_example': False}},
                  'full': {'planner': 'code'}, 'script': {'planner': 'script'}}
    spec = parse_spec({**SPEC, 'tasks': ['pick_place'], 'seeds': [0], 'layouts': [0],
                       'interfaces': interfaces})
    assert 'PromptVariant(without worked_example)' in repr(spec.interface('bare'))
    jobs = {j.interface.name: j for j in expand(spec)}
    bare, full, script = (episode_spec(jobs[n]) for n in ('bare', 'full', 'script'))
    assert bare.prompt == PromptVariant(worked_example=False)
    assert full.prompt == PromptVariant() == script.prompt
    assert bare.to_record()['prompt'] == {'worked_example': False, 'asks': True}
    assert script.to_record()['prompt'] is None  # a planner that asks no model has none
    assert jobs['bare'].describe()['prompt'] == {'worked_example': False}
    assert jobs['full'].describe()['prompt'] == {}
    # spec.json keeps the prompt only where one is given, so older run folders still bind.
    kept = spec.to_dict()['interfaces']
    assert kept['bare']['prompt'] == {'worked_example': False} and 'prompt' not in kept['full']
    assert parse_spec(spec.to_dict()) == spec


def test_the_prompt_ablation_takes_one_part_away_from_the_comparisons_code_arm():
    from importlib import resources

    folder = resources.files('pyrua_lab') / 'evaluation' / 'specs'
    ablation = load_spec(str(folder / 'ablation_prompt.yaml'))
    comparison = load_spec(str(folder / 'real_model.yaml')).interface('code')
    arms = {i.name: i for i in ablation.interfaces}
    assert arms['code_fence'] == dataclasses.replace(comparison, name='code_fence')
    changed = {name: ({k: v for k, v in arm.endpoint.items() if comparison.endpoint.get(k) != v},
                      dict(arm.prompt)) for name, arm in arms.items()}
    assert changed == {'code_fence': ({}, {}),
                       'code_bare': ({}, {'worked_example': False}),
                       'code_json': ({'call_form': 'tool'}, {}),
                       'code_no_asks': ({}, {'asks': False})}
    jobs = expand(ablation)
    assert len(jobs) == 48 and len({j.task for j in jobs}) == 6  # 12 episodes an arm
    # Task by task, each layout's arms in turn: a cut-off run leaves comparable arms.
    assert [j.interface.name for j in jobs[:4]] == list(arms)


def test_privileged_perception_needs_an_explicit_allow():
    spec = parse_spec({**SPEC, 'perception': 'oracle', 'allow_privileged': True})
    job = expand(spec)[0]
    assert job.describe()['perception'] == 'oracle'
    from pyrua_lab.evaluation.runner import episode_spec

    assert episode_spec(job).library.segmenter == 'oracle'


def test_benchmark_tasks_run_in_their_world_and_suites_expand_or_refuse():
    from pyrua_lab.evaluation.runner import episode_spec
    from pyrua_primitives.errors import MissingDependency

    spec = parse_spec({**SPEC, 'tasks': ['libero_goal/2'], 'layouts': [7]})
    job = expand(spec)[0]
    assert (job.suite, job.dimension, job.episode_id) == ('libero_goal', None,
                                                          'code.libero_goal~2.s0.l7')
    assert episode_spec(job).world == 'libero'
    with pytest.raises(ValueError, match="unknown benchmark suite 'libero_spatail'"):
        resolve_tasks(('libero_spatail/*',))
    try:
        import libero  # noqa: F401  (the optional LIBERO extra)
    except ImportError:
        with pytest.raises(MissingDependency, match='pip install'):
            resolve_tasks(('libero_spatial/*',))
    else:
        assert resolve_tasks(('libero_spatial/*',))[:2] == ('libero_spatial/0',
                                                            'libero_spatial/1')

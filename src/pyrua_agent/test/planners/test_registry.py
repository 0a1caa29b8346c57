"""Planners by name: one registry, refusals that list the valid names."""

from pyrua_agent.planners import (
    CodeAgentPlanner,
    make_planner,
    PLANNERS,
    ScriptPlanner,
    ToolCallingPlanner,
)
import pytest


def test_registry_names_every_planner():
    assert sorted(PLANNERS) == ['code', 'replay', 'script', 'tools', 'tools_on_request']


def test_make_planner_builds_each_llm_planner(station, endpoint):
    kwargs = {'primitives': station.primitives(), 'endpoint': endpoint}
    assert isinstance(make_planner('code', **kwargs), CodeAgentPlanner)
    tools = make_planner('tools', **kwargs)
    assert isinstance(tools, ToolCallingPlanner) and tools.name == 'tools'
    assert make_planner('tools_on_request', **kwargs).name == 'tools_on_request'


def test_make_planner_builds_the_script_planner_from_a_file(tmp_path):
    path = tmp_path / 'prog.py'
    path.write_text('# %% one\nprint(1)\n', encoding='utf-8')
    planner = make_planner('script', source=path)
    assert isinstance(planner, ScriptPlanner) and planner.name == 'script'


def test_make_planner_refuses_unknown_names_and_missing_inputs(station, tmp_path):
    with pytest.raises(ValueError, match="unknown planner 'tool'; did you mean 'tools'"):
        make_planner('tool')
    with pytest.raises(ValueError, match="planner 'code' needs primitives and an endpoint"):
        make_planner('code', primitives=station.primitives())
    with pytest.raises(ValueError, match="planner 'replay' needs source"):
        make_planner('replay')
    with pytest.raises(ValueError, match="planner 'script' takes no options vs \\['cameras'\\]"):
        make_planner('script', source=tmp_path / 'x.py', cameras=('head',))


def test_each_tool_calling_kind_carries_its_image_mode_and_the_harness_reads_the_registry(
        station, endpoint):
    from pyrua_lab.evaluation.paired import llm_interfaces
    kinds = {name: kind.images for name, kind in PLANNERS.items() if kind.images}
    assert sorted(kinds.values()) == ['after_motion', 'on_request']  # one kind per mode
    for name, images in kinds.items():
        planner = make_planner(name, primitives=station.primitives(), endpoint=endpoint)
        assert (planner.name, planner.images) == (name, images)
    groups = {'a': [{'planner': 'tools_on_request'}], 'b': [{'planner': 'script'}],
              'c': [{'planner': 'code'}, {'planner': 'replay'}]}
    assert llm_interfaces(groups) == ['a']


def test_an_image_mode_no_planner_kind_names_is_refused(station, endpoint):
    with pytest.raises(ValueError, match="unknown image mode 'always'; valid: 'after_motion', "
                                         "'on_request'"):
        ToolCallingPlanner(endpoint, station.primitives(), images='always')


def test_llm_kinds_and_only_they_carry_prompt_files():
    from pyrua_agent.planners import PlannerKind
    from pyrua_agent.prompt import prompt_text, PromptFiles

    for name, kind in PLANNERS.items():
        assert (kind.prompt is not None) == kind.needs_endpoint, name
        if kind.prompt is not None:
            assert prompt_text(kind.prompt.intro) and prompt_text(kind.prompt.notes)
    with pytest.raises(ValueError, match='an LLM planner \\(and only one\\) carries'):
        PlannerKind(build=make_planner, needs_endpoint=True, reads_file=False, summary='x')
    with pytest.raises(ValueError, match="images 'on_request' on a planner that asks no"):
        PlannerKind(build=make_planner, needs_endpoint=False, reads_file=True, summary='x',
                    images='on_request')
    assert PlannerKind(build=make_planner, needs_endpoint=True, reads_file=False, summary='x',
                       prompt=PromptFiles(intro='intro_code.md', notes='notes_code.md'))

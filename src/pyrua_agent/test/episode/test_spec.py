"""The episode spec: refusals that name the fix, a record without secrets, the registries."""

from dataclasses import replace
import json
import pickle

from pyrua_agent.episode import EpisodeSpec, run_episode_spec
from pyrua_agent.llm import EndpointConfig
from pyrua_agent.planners import needs_endpoint, needs_source, PLANNERS
import pytest


def test_llm_planners_are_the_ones_that_need_an_endpoint():
    assert {n for n in PLANNERS if needs_endpoint(n)} == {'code', 'tools', 'tools_on_request'}
    assert {n for n in PLANNERS if needs_source(n)} == {'replay', 'script'}
    with pytest.raises(ValueError, match="unknown planner 'cod'; did you mean 'code'"):
        needs_endpoint('cod')


@pytest.mark.parametrize('changes, message', [
    ({'planner': 'tool'}, "unknown planner 'tool'; did you mean 'tools'"),
    ({'planner': 'replay'}, "planner 'replay' needs source"),
    ({'planner': 'code', 'source': 'x.py'}, "source 'x.py' vs planner 'code'"),
    ({'sandbox': 'bwrp'}, "unknown sandbox mode 'bwrp'; did you mean 'bwrap'"),
    ({'cell_timeout_s': 0.0}, 'cell_timeout_s 0.0 vs > 0 s'),
    ({'card_cameras': ('top',)}, "card_cameras \\['top'\\] vs cameras"),
    ({'runs_dir': ''}, "runs_dir '' with record=True"),
])
def test_spec_refuses_bad_values_naming_the_fix(changes, message):
    with pytest.raises(ValueError, match=message):
        EpisodeSpec(task='pick_place', **changes)


def test_spec_record_is_json_without_the_key_and_pickles(monkeypatch):
    monkeypatch.setenv('MY_KEY', 'sk-secret-value')
    spec = EpisodeSpec(task='pick_place', planner='code',
                       endpoint=EndpointConfig(base_url='http://127.0.0.1:9/v1', model='m',
                                               api_key_env='MY_KEY'))
    text = json.dumps(spec.to_record())
    assert 'sk-secret-value' not in text and '"api_key_env": "MY_KEY"' in text
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert EpisodeSpec(task='pick_place').to_record()['endpoint'] is None


def test_unknown_world_is_refused_before_anything_opens(tmp_path):
    spec = replace(EpisodeSpec(task='pick_place', runs_dir=str(tmp_path)), world='twim')
    with pytest.raises(ValueError, match="unknown world 'twim'; did you mean 'twin'"):
        run_episode_spec(spec)
    assert not any(tmp_path.iterdir())


def test_script_episode_without_recording_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    script = tmp_path / 'look.py'
    script.write_text('# %%\nprint(robo.pose("left"))\n')
    result = run_episode_spec(EpisodeSpec(task='pick_place', source=str(script), record=False))
    assert result.end_reason == 'gave_up' and result.cells == 1 and result.run_dir is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ['look.py']

"""The GRPO loop on the toy world: drops and replays, checkpoints and resume, refusals."""

import json

from pyrua_lab.training import GrpoTrainer, load_train_config, TrainConfig, TrainingError
import pytest


def _log(out):
    return [json.loads(line) for line in (out / 'train_log.jsonl').read_text().splitlines()]


def _comparable(record):
    return {k: v for k, v in record.items() if k not in ('episode_s', 'optimizer_s')}


@pytest.mark.slow
def test_resume_from_a_checkpoint_continues_the_same_run(toy_config, tmp_path):
    from safetensors.torch import load_file
    import torch

    whole = GrpoTrainer(toy_config(iterations=2), tmp_path / 'whole')
    whole.run()
    first = GrpoTrainer(toy_config(iterations=1), tmp_path / 'split')
    first.run()
    with pytest.raises(TrainingError, match='pass --resume to continue it'):
        GrpoTrainer(toy_config(iterations=2), tmp_path / 'split')
    second = GrpoTrainer(toy_config(iterations=2), tmp_path / 'split', resume=True)
    assert second.start_iteration == 2
    second.run()
    assert [_comparable(r) for r in _log(tmp_path / 'split')] == [
        _comparable(r) for r in _log(tmp_path / 'whole')]
    assert _log(tmp_path / 'whole')[1]['loss'] != 0.0, 'the second iteration must learn'
    a = load_file(tmp_path / 'whole/checkpoints/iter-0002/model.safetensors')
    b = load_file(tmp_path / 'split/checkpoints/iter-0002/model.safetensors')
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    first_weights = load_file(tmp_path / 'split/checkpoints/iter-0001/model.safetensors')
    assert not all(torch.equal(a[k], first_weights[k]) for k in a), 'weights must change'


@pytest.mark.slow
def test_a_group_with_an_infrastructure_failure_is_dropped_and_played_again(
        toy_config, tiny_model, tmp_path):
    from pyrua_lab.training.policy import LocalPolicy

    class FlakyAccelerator(LocalPolicy):
        """The policy whose device fails once, on the third completion of the run."""

        calls = 0

        def sample(self, *args, **kwargs):
            type(self).calls += 1
            if type(self).calls == 3:
                raise RuntimeError('CUDA error: an illegal memory access was encountered')
            return super().sample(*args, **kwargs)

    config = toy_config(parallel_episodes=1, endpoint_retries=0)
    trainer = GrpoTrainer(config, tmp_path, policy=FlakyAccelerator(tiny_model))
    record = trainer.run()[0]
    assert record['groups_dropped'] == 1
    assert record['episodes'] == 8 and 'infra_error' not in record['end_reasons']
    lines = (tmp_path / 'episodes.jsonl').read_text().splitlines()
    episodes = [json.loads(line) for line in lines]
    ids = [e['episode'] for e in episodes]
    assert len(ids) == 8 and len(set(ids)) == 8
    # Group 0 lost an episode on its first attempt: it was played again as attempt 1.
    assert sorted({i.rsplit('-r', 1)[0] for i in ids}) == ['it0001-g00-a1', 'it0001-g01-a0']


@pytest.mark.slow
def test_a_group_that_keeps_failing_stops_the_run_with_the_cause(toy_config, tiny_model,
                                                                 tmp_path):
    from pyrua_lab.training.policy import LocalPolicy

    class DeadAccelerator(LocalPolicy):
        def sample(self, *args, **kwargs):
            raise RuntimeError('CUDA error: device lost')

    config = toy_config(parallel_episodes=2, endpoint_retries=0, max_group_attempts=2)
    trainer = GrpoTrainer(config, tmp_path, policy=DeadAccelerator(tiny_model))
    with pytest.raises(TrainingError, match=r'in 2 groups vs max_group_attempts=2.*device lost'):
        trainer.run()
    assert not (tmp_path / 'checkpoints').exists()
    # Nothing was done: the rerun (with or without --resume, other settings too) proceeds.
    again = GrpoTrainer(toy_config(parallel_episodes=1), tmp_path)
    assert again.start_iteration == 1
    assert GrpoTrainer(toy_config(), tmp_path, resume=True).start_iteration == 1


def test_spec_refuses_unknown_settings_and_impossible_draws(tmp_path):
    spec = tmp_path / 'spec.yaml'
    spec.write_text('model: m\ntasks: [pick_place]\nlearning_rte: 1e-6\n')
    with pytest.raises(ValueError, match="did you mean 'learning_rate'"):
        load_train_config(spec)
    spec.write_text('model: m\ntasks: [pick_place]\nlayouts: 0-3\n')
    with pytest.raises(ValueError, match=r'instances_per_iteration 16 vs 4 instances'):
        load_train_config(spec)
    spec.write_text('model: m\ntasks: [pick_place, stack_blocks]\nlayouts: 0-7\n')
    config = load_train_config(spec)
    assert config.model == str(tmp_path / 'm') and len(config.instance_keys()) == 16
    assert (config.rollouts_per_instance, config.optimizer_steps, config.learning_rate,
            config.clip_low, config.clip_high, config.iterations, config.max_cells,
            config.wall_clock_s, config.max_new_tokens) == (8, 2, 1e-6, 0.2, 0.28, 30, 24,
                                                            1500.0, 4096)
    with pytest.raises(ValueError, match='not divisible'):
        TrainConfig(model='m', tasks=['pick_place'], layouts='0-15', optimizer_steps=3)


def test_unknown_task_names_are_refused_before_anything_runs(tmp_path):
    spec = tmp_path / 'spec.yaml'
    spec.write_text('model: m\ntasks: [pick_plac]\nlayouts: 0-15\n')
    with pytest.raises(ValueError, match=r"unknown task 'pick_plac'; did you mean 'pick_place'"):
        load_train_config(spec)
    with pytest.raises(ValueError, match=r"did you mean 'press_red'"):
        TrainConfig(model='m', world='toy', tasks=['press_rd'], layouts='0-1',
                    instances_per_iteration=2)
    with pytest.raises(ValueError, match=r'layout index 50 vs valid range 0..49'):
        TrainConfig(model='m', tasks=['pick_place'], layouts='35-50')


def test_a_run_whose_policy_fails_to_load_leaves_no_config_behind(toy_config, tmp_path):
    with pytest.raises(FileNotFoundError, match='has no config.json'):
        GrpoTrainer(toy_config(model=str(tmp_path / 'missing')), tmp_path / 'run')
    assert not (tmp_path / 'run' / 'config.yaml').exists()
    trainer = GrpoTrainer(toy_config(), tmp_path / 'run')
    assert trainer.start_iteration == 1 and (tmp_path / 'run' / 'config.yaml').is_file()


def test_the_cpu_recipe_spec_names_a_valid_small_run():
    from importlib import resources

    path = resources.files('pyrua_lab') / 'evaluation' / 'specs' / 'train_cpu.yaml'
    config = load_train_config(str(path))
    assert config.model == 'local:qwen2.5-coder-0.5b', 'local: is not a path to resolve'
    assert config.episodes_per_iteration == 8 and config.rollouts_per_instance == 4
    assert (config.learning_rate, config.clip_low, config.clip_high, config.temperature) == (
        1e-6, 0.2, 0.28, 1.0), 'the loss and optimiser stay the recipe'


def test_training_episodes_read_a_local_model_as_evaluation_does(toy_config):
    from dataclasses import replace

    from pyrua_agent.llm import EndpointConfig
    from pyrua_agent.llm.local import local_endpoint
    from pyrua_lab.training.rollout import training_endpoint

    url = 'http://127.0.0.1:9/episodes/e/v1'
    folder = training_endpoint(toy_config(), url)
    assert (folder.model, folder.code_form, folder.continues_final_message) == (
        'policy', 'tool', False)
    assert training_endpoint(toy_config(call_form='fence'), url).continues_final_message
    local = training_endpoint(replace(toy_config(), model='local:qwen2.5-coder-0.5b'), url)
    evaluated = local_endpoint(EndpointConfig(model='local:qwen2.5-coder-0.5b'), url)
    # The same reply form, prefill and forced calls as evaluation; sampling is the policy's.
    for name in ('call_form', 'continues_final_message', 'force_every_call', 'takes_images',
                 'bar_repeated_looks'):
        assert getattr(local, name) == getattr(evaluated, name), name
    assert local.code_form == 'fence' and local.model == 'policy'
    assert evaluated.repeat_temperature is not None and local.repeat_temperature is None
    assert local.temperature is None


def test_lora_settings_are_checked():
    base = {'model': 'm', 'world': 'toy', 'tasks': ['press_red'], 'layouts': '0-1',
            'instances_per_iteration': 2}
    with pytest.raises(ValueError, match='lora_rank -1 vs an integer >= 0'):
        TrainConfig(**base, lora_rank=-1)
    with pytest.raises(ValueError, match='lora_alpha 0 vs > 0'):
        TrainConfig(**base, lora_rank=4, lora_alpha=0)
    with pytest.raises(ValueError, match="lora_rank > 0 vs engine 'sglang'"):
        TrainConfig(**base, lora_rank=4, engine='sglang', engine_url='http://127.0.0.1:1')
    with pytest.raises(ValueError, match="unknown call_form 'fenced'; did you mean 'fence'"):
        TrainConfig(**base, call_form='fenced')


@pytest.mark.slow
def test_a_lora_run_trains_only_the_adapters_and_resumes_the_same_run(toy_config, tiny_model,
                                                                      tmp_path):
    from safetensors.torch import load_file
    import torch
    from transformers import AutoModelForCausalLM

    config = toy_config(iterations=2, lora_rank=4, lora_alpha=8.0)
    whole = GrpoTrainer(config, tmp_path / 'whole')
    frozen = {k: v.clone() for k, v in whole.policy.model.named_parameters()
              if not v.requires_grad}
    assert 0 < whole.policy.trainable_parameters() < sum(
        p.numel() for p in whole.policy.model.parameters())
    whole.run()
    after = dict(whole.policy.model.named_parameters())
    assert all(torch.equal(frozen[k], after[k]) for k in frozen), 'base weights stay frozen'
    GrpoTrainer(toy_config(iterations=1, lora_rank=4, lora_alpha=8.0), tmp_path / 'split').run()
    second = GrpoTrainer(config, tmp_path / 'split', resume=True)
    assert second.start_iteration == 2 and second.policy.lora_rank == 4
    second.run()
    assert [_comparable(r) for r in _log(tmp_path / 'split')] == [
        _comparable(r) for r in _log(tmp_path / 'whole')]
    last = tmp_path / 'whole/checkpoints/iter-0002'
    a = load_file(last / 'adapter' / 'adapter_model.safetensors')
    b = load_file(tmp_path / 'split/checkpoints/iter-0002/adapter/adapter_model.safetensors')
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert any(k.endswith('lora_B.weight') and a[k].abs().sum() > 0 for k in a), 'B learned'
    # The checkpoint's model folder is the adapted model, merged: export and serving read it.
    merged = AutoModelForCausalLM.from_pretrained(last, local_files_only=True)
    original = AutoModelForCausalLM.from_pretrained(tiny_model, local_files_only=True)
    tokens = torch.tensor([[0, 3, 4, 1, 3]])
    with torch.no_grad():
        adapted = whole.policy.model(input_ids=tokens).logits
        assert torch.allclose(merged(input_ids=tokens).logits, adapted, atol=1e-5)
        assert not torch.allclose(original(input_ids=tokens).logits, adapted, atol=1e-5)
    assert not any('lora' in k for k in load_file(last / 'model.safetensors'))

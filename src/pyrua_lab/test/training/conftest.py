"""Fixtures of the training tests: a tiny random policy built offline (no download)."""

import pytest


@pytest.fixture(scope='session')
def tiny_model(tmp_path_factory):
    """Write the tiny toy policy (random Qwen2, phrase tokenizer) once per session."""
    pytest.importorskip('torch', reason='training needs the train extra (torch)')
    pytest.importorskip('trl', reason='training needs the train extra (trl)')
    from pyrua_lab.training.tiny import build_tiny_policy
    from pyrua_lab.training.toy import TOY_CELLS

    return build_tiny_policy(tmp_path_factory.mktemp('tiny') / 'model', TOY_CELLS, seed=0)


@pytest.fixture
def toy_config(tiny_model):
    """Return a small toy-world config over the tiny policy (fast settings, recipe loss)."""
    from pyrua_lab.training import TrainConfig

    def make(**overrides):
        settings = {'model': str(tiny_model), 'world': 'toy', 'tasks': ['press_red'],
                    'layouts': '0-1', 'instances_per_iteration': 2, 'rollouts_per_instance': 4,
                    'iterations': 1, 'max_cells': 3, 'max_llm_calls': 3, 'max_new_tokens': 8,
                    'parallel_episodes': 2, 'learning_rate': 1e-2}
        settings.update(overrides)
        return TrainConfig(**settings)

    return make

"""``pyrua prompt``: exactly what the model reads, counted in its own tokens."""

import re

from pyrua_agent.cli import main
from pyrua_local.testing import require_local_model
import pytest


def _count(err):
    return int(re.search(r'# (\d+) prompt tokens in', err).group(1))


def test_prompt_prints_the_opening_request_of_a_hosted_model(capsys):
    assert main(['prompt', '--task', 'pick_place', '--model', 'gpt-5-mini']) == 0
    out, err = capsys.readouterr()
    assert '===== system' in out and 'robo.move_to(' in out
    assert 'Instruction: Put the blue block in the green bowl.' in out
    assert '"name": "python"' in out
    assert 'o200k_base' in err and _count(err) > 2000


@pytest.mark.slow
def test_a_local_model_is_counted_in_its_own_tokenizer_and_shown_text_only(capsys):
    require_local_model('smollm2-135m')
    from pyrua_local.tokenizer import ModelTokenizer

    assert main(['prompt', '--task', 'pick_place', '--planner', 'tools', '--model',
                 'local:smollm2-135m', '--raw']) == 0
    out, err = capsys.readouterr()
    text = out[:-1]  # print's newline; the prompt itself ends with one
    assert text.startswith('<|im_start|>system') and '<tools>' in text
    assert '[image: head camera, 640x480]' in text and 'base64' not in text
    assert _count(err) == len(ModelTokenizer('smollm2-135m').tokenize(text))


def test_raw_needs_a_local_model(capsys):
    assert main(['prompt', '--task', 'pick_place', '--model', 'gpt-5-mini', '--raw']) == 2
    assert '--raw needs a local model' in capsys.readouterr().err

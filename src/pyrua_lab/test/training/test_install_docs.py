"""The README's install line of the train extra gets a CPU torch on a machine without a GPU."""

from pathlib import Path
import re

ROOT = Path(__file__).resolve().parents[4]


def _training_section():
    text = (ROOT / 'README.md').read_text(encoding='utf-8')
    start = text.index('## Training the Coder')
    return text[start:text.index('\n## ', start + 1)]


def test_readme_installs_the_cpu_torch_build_before_the_train_extra():
    section = _training_section()
    cpu = section.index('--index-url https://download.pytorch.org/whl/cpu')
    assert cpu < section.index('then the extra'), 'CPU torch must come before the extra'
    pinned = re.search(r"'torch==([0-9.]+)'",
                       (ROOT / 'src/pyrua_primitives/setup.py').read_text()).group(1)
    assert f'`torch=={pinned}`' in section, 'the README names the pin setup.sh installs'

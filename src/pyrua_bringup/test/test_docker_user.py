"""The docker image builds, tests and runs the nodes as a normal user, never as root."""

from pathlib import Path
import re

ROOT = Path(__file__).resolve().parents[3]
DOCKERFILE = ROOT / 'docker' / 'Dockerfile'


def _instructions():
    """Return the Dockerfile's (instruction, arguments) in order, continuations joined."""
    text = re.sub(r'\\\n', ' ', DOCKERFILE.read_text())
    steps = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith('#'):
            word, _, rest = line.partition(' ')
            steps.append((word.upper(), rest.strip()))
    return steps


def test_the_last_user_is_not_root_and_comes_before_the_build():
    steps = _instructions()
    users = [(i, args) for i, (word, args) in enumerate(steps) if word == 'USER']
    assert users, 'no USER: the build, the tests and the nodes would run as root'
    last, name = users[-1]
    assert name not in ('root', '0') and not name.startswith(('root:', '0:'))
    build = next(i for i, (word, args) in enumerate(steps)
                 if word == 'RUN' and 'colcon build' in args)
    test = next(i for i, (word, args) in enumerate(steps)
                if word == 'RUN' and 'colcon test' in args)
    assert last < build < test


def test_the_user_exists_and_owns_the_workspace_it_builds_in():
    steps = _instructions()
    name = [args for word, args in steps if word == 'USER'][-1]
    made = [args for word, args in steps if word == 'RUN' and 'useradd' in args]
    assert made and re.search(rf'useradd\b.*\b{name}\b', made[0])
    assert any(f'chown {name}:{name} /ws' in args for args in made)
    user_at = max(i for i, (word, _) in enumerate(steps) if word == 'USER')
    copies = [args for word, args in steps[user_at:] if word == 'COPY' and 'src/' in args]
    assert copies and all(args.startswith(f'--chown={name}:{name} ') for args in copies)


def test_root_steps_come_first():
    steps = _instructions()
    user_at = max(i for i, (word, _) in enumerate(steps) if word == 'USER')
    for word, args in steps[user_at:]:
        assert not (word == 'RUN' and re.search(r'\b(apt-get|rosdep install|pip3? install)\b',
                                                args)), f'needs root after USER: {args}'

"""``perception: rgbd`` (LIBERO's non-privileged RGB-D perception) in an eval spec."""

from pyrua_lab.evaluation import expand, parse_spec
from pyrua_lab.evaluation.runner import episode_spec
import pytest

SPEC = {
    'name': 'libero-rgbd',
    'tasks': ['libero_goal/2'],
    'layouts': [0],
    'interfaces': {'script': {'planner': 'script'}},
    'perception': 'rgbd',
}


def test_rgbd_is_a_perception_mode_and_reaches_the_episode_with_depth():
    spec = parse_spec(SPEC)
    job = expand(spec)[0]
    assert job.describe()['perception'] == 'rgbd'
    library = episode_spec(job).library
    assert (library.segmenter, library.use_depth, library.allow_privileged) == ('rgbd', True,
                                                                                False)


def test_rgbd_needs_no_privilege_and_unknown_modes_list_it():
    assert not parse_spec(SPEC).allow_privileged
    with pytest.raises(ValueError, match="unknown perception mode 'rgb-d'.*rgbd"):
        parse_spec({**SPEC, 'perception': 'rgb-d'})


def test_rgbd_on_a_twin_task_is_refused_naming_the_world():
    job = expand(parse_spec({**SPEC, 'tasks': ['pick_place']}))[0]
    with pytest.raises(ValueError, match="provided by the libero world.*'pick_place' runs in "
                                         'the twin world'):
        episode_spec(job)

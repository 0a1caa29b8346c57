"""
Every number the station facts document is accepted where they say it is (issue 31, item 1).

A cell reads ``robo.station_facts()`` and moves to each documented limit on the twin: the
lowest z of a descent, the table clearance without one, and every reach band's height at
the middle of its distances, for each arm. The old gate refused the first by a fraction of a
millimetre (``finger tips z=0.768 m are below the floor 0.768 m``).
"""

from pyrua_agent.episode import EpisodeSpec, run_episode_spec
import pytest

PROGRAM = """# %% every documented limit
import math
facts = robo.station_facts()
for arm, arm_facts in facts.arms.items():
    bx, by = facts.base_xy(arm)
    for height, near, far in arm_facts.reach_m:
        d = (near + far) / 2
        z = facts.table_z_m + height
        low = height < facts.table_clearance_m  # under the clearance: a descent's band
        print('band', arm, round(height, 3),
              robo.move_to(arm, [bx, by + d, z], descend=low))
    x, y = bx, by + 0.30
    print('hover', arm, robo.move_to(arm, [x, y, facts.table_z_m + 0.08]).reached)
    print('clearance', arm, robo.move_to(arm, [x, y, facts.table_z_m + facts.table_clearance_m]))
    print('lowest', arm, robo.move_to(arm, [x, y, facts.lowest_descend_z_m], descend=True).reached)
    below = robo.move_to(arm, [x, y, facts.lowest_descend_z_m - 0.002], descend=True)
    print('below', arm, below.reached, below.reason)
    print('up', arm, robo.move_to(arm, [x, y, facts.table_z_m + 0.08]).reached)
    robo.home(arm)
"""


@pytest.mark.parametrize('layout', [0])  # the probe points are clear of its objects
def test_each_documented_limit_is_reached_and_just_past_it_is_refused(tmp_path, layout):
    program = tmp_path / 'limits.py'
    program.write_text(PROGRAM)
    spec = EpisodeSpec(task='pick_place', layout=layout, planner='script',
                       source=str(program), record=False, success_guard=False)
    outputs = []
    run_episode_spec(spec, on_cell=lambda cell, result: outputs.append(result.output))
    lines = outputs[0].splitlines()
    assert not any('Traceback' in line for line in lines), outputs[0]
    checks = [line for line in lines if not line.startswith('below')]
    assert len([line for line in checks if line.startswith('band')]) >= 6
    assert all(line.endswith('True') or 'MoveResult(reached,' in line for line in checks), (
        outputs[0])
    below = [line for line in lines if line.startswith('below')]
    assert len(below) == 2
    for line in below:  # refused, naming the lowest z that is accepted
        assert ' False ' in line and 'raise z to at least 0.7880' in line, line

"""What a first-time author reads in the prompt agrees with the station (issue 24)."""

import math

from pyrua_agent.prompt import code_api_reference
from pyrua_agent.prompt.station_facts import station_facts
from pyrua_primitives.library import PrimitiveLibrary
from pyrua_sim.twin import load_twin
import pytest


@pytest.fixture(scope='module')
def twin_prompt():
    with load_twin('pick_place', 0, 0) as twin:
        library = PrimitiveLibrary(twin.station)
        yield (code_api_reference(library.primitives()), station_facts(twin.station),
               {arm: library.pose(arm) for arm in library.arms})


def test_reach_numbers_come_from_the_station_facts_only(twin_prompt):
    reference, facts, _ = twin_prompt
    # Before issue 24 move_to quoted its own band (0.06-0.48 m) beside the facts' 0.07-0.48 m.
    assert '0.06-0.48' not in reference and '0.115' not in reference
    assert "distances from its arm's base that the station facts list" in reference
    assert '0.03 m above the table: 0.08-0.47 m' in facts
    assert 'nothing above about 0.115 m above the table' in facts
    assert '0.088' not in reference and 'at most 0.088 m between the finger pads' in facts


def test_station_facts_state_the_start_pose_the_arms_are_really_in(twin_prompt):
    _, facts, poses = twin_prompt
    line = next(x for x in facts.splitlines() if 'ready pose' in x)
    for arm, pose in poses.items():
        x, y, z = pose.position_m
        tilt = round(math.degrees(pose.tilt_rad))
        assert f'the {arm} pads at ({x:.2f}, {y:.2f}, {z:.3f})' in line
        assert f'tilted {tilt} deg' in line
    assert 'outside the straight-down reach' in line and 'a move_to from it is fine' in line


def test_locate_docs_say_which_nouns_which_side_and_nearest_to_what(twin_prompt):
    reference, _, _ = twin_prompt
    assert "'nearest' (smallest y: nearest the arm bases)" in reference
    assert "'hole' (white) only with the 'sam3' segmenter, not the\n" in reference
    assert 'A block inside a bowl of its colour merges with the bowl' in reference
    assert 'move_to(heading=h) closes the fingers\n        along it, h + pi/2' in reference
    assert '``colour`` (as seen)' in reference


def test_operating_notes_say_stacked_blocks_in_a_bowl_do_not_count():
    from pyrua_agent.prompt import prompt_text

    notes = ' '.join(prompt_text('operating_notes.md').split())
    assert 'In a bowl means resting on its floor: two blocks go side by side, not stacked.' \
        in notes

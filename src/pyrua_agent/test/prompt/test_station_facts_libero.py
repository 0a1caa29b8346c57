"""
A LIBERO station's prompt carries LIBERO's numbers, never the twin's (issue 25).

The parts of the code-interface system prompt a station shapes (the API reference from the
primitives and the station facts; the rest is the same text for every station) are rendered
for the twin and for a LIBERO task; every number the twin's station facts state (table, bases, head
camera, reach bands, gripper, clearance heights) is looked for in LIBERO's. Needs the
``libero`` extra (CI builds it in ``.venv-libero``); building a LIBERO environment takes
about 10 s, so the test is slow.
"""

import importlib.util
import re

from pyrua_agent.prompt import code_api_reference
from pyrua_agent.prompt.station_facts import station_facts
from pyrua_primitives.library import PrimitiveLibrary
from pyrua_sim.twin import load_twin
import pytest


def _prompt(station) -> tuple[str, object]:
    library = PrimitiveLibrary(station)
    text = code_api_reference(library.primitives()) + '\n\n' + station_facts(station)
    return text, library.station_facts()


def _twin_numbers(facts, station) -> set[str]:
    """Return the numbers the twin's station facts state, as the prompt spells them."""
    numbers = {f'{facts.table_z_m:.3f}', f'{facts.gripper_max_width_m:.3f}',
               f'{facts.table_z_m + facts.table_clearance_m:.3f}',
               f'{facts.lowest_descend_z_m:.3f}'}
    for arm in facts.arms.values():
        numbers |= {f'{arm.base_m[0]:.2f}', f'{arm.base_m[1]:.2f}'}
        numbers |= {f'{near:.2f}-{far:.2f}' for _, near, far in arm.reach_m}
        numbers.add(f'{arm.top_m:.3f}')
        numbers.add(f'{arm.ready_m[2]:.3f}')
    numbers.add(f'{station.camera_model("head").position_m[2]:.3f}')
    return numbers


def _spelled(text: str) -> set[str]:
    return set(re.findall(r'-?\d+\.\d+(?:-\d+\.\d+)?', text))


def test_the_api_reference_quotes_no_number_of_the_station_facts():
    with load_twin('pick_place', 0, 0) as twin:
        library = PrimitiveLibrary(twin.station)
        reference = code_api_reference(library.primitives())
        facts = library.station_facts()
        numbers = _twin_numbers(facts, twin.station)
    # the clearances the gate keeps, as move_to's docstring quoted them before issue 25
    numbers |= {f'{facts.table_clearance_m:.2f}', f'{facts.fingertip_beyond_tcp_m:.2f}',
                f'{facts.fingertip_floor_m + facts.fingertip_beyond_tcp_m:.3f}'}
    assert not numbers & _spelled(reference), numbers & _spelled(reference)
    assert 'station facts' in reference and '3 mm' not in reference


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec('libero') is None,
                    reason='needs the LIBERO extra: pip install -e src/pyrua_sim[libero]')
@pytest.mark.filterwarnings('ignore::DeprecationWarning')
@pytest.mark.filterwarnings('ignore::UserWarning')
@pytest.mark.filterwarnings('ignore::FutureWarning')
def test_the_libero_prompt_states_no_number_of_the_twin():
    from pyrua_sim.benchmarks import load

    with load_twin('pick_place', 0, 0) as twin:
        twin_text, twin_facts = _prompt(twin.station)
        numbers = _twin_numbers(twin_facts, twin.station)
    with load('libero_spatial/0', 0) as world:
        world.reset(index=0)
        libero_text, libero_facts = _prompt(world.station)
    assert numbers and all(number in twin_text for number in numbers), numbers
    spelled = _spelled(libero_text)
    assert not numbers & spelled, f'twin numbers in the LIBERO prompt: {numbers & spelled}'
    # ... and it states LIBERO's own table, arm and gripper instead.
    assert f'- The table top is at z = {libero_facts.table_z_m:.3f} m.' in libero_text
    assert 'the arm arm base at' in libero_text and 'plans its own motions' in libero_text
    assert f'at most {libero_facts.gripper_max_width_m:.3f} m' in libero_text
    assert libero_facts.table_z_m != twin_facts.table_z_m

"""The one world registry: entry points of the installed packages, the task -> world rule."""

from importlib import metadata

from pyrua_primitives.world import (
    ENTRY_POINT_GROUP,
    register_world,
    world_entry,
    world_names,
    world_of,
    WorldEntry,
    WorldParts,
)
import pytest


def test_every_world_registers_through_its_packages_entry_points():
    points = {ep.name: ep.value for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    assert {'twin', 'libero', 'replay', 'toy', 'ros'} <= set(points)
    assert points['twin'].startswith('pyrua_sim.') and points['toy'].startswith('pyrua_lab.')
    assert points['ros'] == 'pyrua_agent.ros.world:ROS'  # its module imports no ROS
    for name in points:
        entry = world_entry(name)  # loads the module that defines it
        assert isinstance(entry, WorldEntry) and entry.name == name


@pytest.mark.parametrize('task, world', [('pick_place', 'twin'), ('press_red', 'toy'),
                                         ('libero_spatial/3', 'libero')])
def test_a_task_belongs_to_the_world_that_owns_it(task, world):
    assert world_of(task) == world


def test_an_unknown_world_is_refused_with_the_registered_names():
    with pytest.raises(ValueError, match="world 'moon'.*twin"):
        world_entry('moon')


def test_a_test_world_registers_once_and_a_second_owner_of_the_name_is_refused():
    entry = WorldEntry(name='test_shelf', opener=lambda spec: WorldParts(instruction='x'),
                       owns=lambda task: task == 'test_shelf_task')
    assert register_world(entry) is entry and register_world(entry) is entry
    assert 'test_shelf' in world_names() and world_of('test_shelf_task') == 'test_shelf'
    with pytest.raises(ValueError, match="world 'test_shelf' is registered already"):
        register_world(WorldEntry(name='test_shelf', opener=entry.opener))
    with pytest.raises(ValueError, match="world 'twin' is registered already"):
        register_world(WorldEntry(name='twin', opener=entry.opener))

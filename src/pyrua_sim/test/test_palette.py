"""The twin paints its objects with the colours the perception knows: one table, one order."""

from pyrua_primitives.perception.query import COLOURS
from pyrua_sim.tasks import sample_layout, TASKS


def test_every_coloured_object_of_every_task_has_the_perceptions_rgb():
    seen = set()
    for task in sorted(TASKS):
        for index in (0, 30):
            for obj in sample_layout(task, 0, index).objects:
                if obj.colour in COLOURS:
                    assert obj.rgb == COLOURS[obj.colour], (task, index, obj)
                    seen.add(obj.colour)
    assert len(seen) >= 3  # the layouts do use the palette

"""Open: press the button of the named colour (and no other) at least 5 mm."""

from __future__ import annotations

from . import register, stage_score, TaskDef
from .predicates import button_press_m, PRESSED_M
from .reasons import lines
from ..layout import distinct_colours, make_object, Placer

PRESSED = 'pressed:'


def sample(rng):
    """Place three spring-loaded buttons of different colours; the first is the target."""
    placer = Placer(rng)
    colours = distinct_colours(rng, 3)
    roles = ('target', 'other', 'other')
    return tuple(
        make_object('button', colour, placer.place('button'), role)
        for colour, role in zip(colours, roles, strict=True)
    )


def instruct(objects):
    """Return 'Press the <button>.'."""
    return f'Press the {objects[0].noun}.'


def events(layout, state):
    """Record ``'pressed:<name>'`` for every button displaced >= 5 mm now."""
    return frozenset(
        PRESSED + b.name for b in layout.objects
        if b.kind == 'button' and button_press_m(state, b) >= PRESSED_M
    )


def _wrong(layout, history):
    return any(PRESSED + b.name in history for b in layout.with_role('other'))


def success(layout, state, history):
    """Return whether the target has been pressed at any time and no other button was."""
    (target,) = layout.with_role('target')
    return PRESSED + target.name in history and not _wrong(layout, history)


def progress(layout, state, history):
    """Stages: target cap moved 1 mm 0.3, 3 mm 0.6 (none while a wrong button was pressed)."""
    (target,) = layout.with_role('target')
    press = button_press_m(state, target)
    ok = not _wrong(layout, history)
    return stage_score((ok and press >= 0.001, ok and press >= 0.003), (0.3, 0.6))


def unmet(layout, state, history):
    """Return the unmet conditions: the target pressed, no other button pressed."""
    (target,) = layout.with_role('target')
    wrong = [b.noun for b in layout.with_role('other') if PRESSED + b.name in history]
    return lines(
        '' if PRESSED + target.name in history else (
            f'{target.noun}: pressed at most {max(0.0, button_press_m(state, target)) * 1000:.1f}'
            f' mm now vs >= {PRESSED_M * 1000:.0f} mm at some time'),
        f'another button was pressed: {", ".join(wrong)}' if wrong else '')


TASK = register(TaskDef('press_button', 'Open', sample, instruct, success, progress,
                        unmet=unmet,
                        events=events, summary='press the spring-loaded button of a colour'))

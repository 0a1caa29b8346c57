"""
Object queries: ``'<colour> <noun>'`` with an optional qualifier, and their vocabulary.

``'red block'``, ``'bowl'``, ``'leftmost blue cube'``. Colours are the rendered RGB of the
twin's objects under simple lighting (0..1); nouns carry a nominal size used only to tell
objects of the same colour apart, never as a measurement.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..naming import unknown_name

COLOURS: dict[str, tuple[float, float, float]] = {
    'red': (0.85, 0.10, 0.10),
    'green': (0.10, 0.65, 0.20),
    'blue': (0.10, 0.30, 0.90),
    'yellow': (0.95, 0.85, 0.10),
    'orange': (1.00, 0.50, 0.05),
    'purple': (0.55, 0.20, 0.75),
}
"""The named colours, linear RGB: what the colour perception knows, and what the twin paints
its objects with (``pyrua_sim.layout`` samples them in this order)."""


@dataclass(frozen=True, slots=True)
class NounShape:
    """Nominal footprint (w, d) and height of a noun, metres, and its outline kind."""

    outline: str
    """``'box'`` (rectangle), ``'round'`` (circle) or ``'cross'`` (two crossed strips)."""
    width_m: float
    depth_m: float
    height_m: float
    coloured: bool = True
    """False for uncoloured fixtures (white/grey), which the colour backend cannot see."""
    base_m: float = 0.0
    """Height above the table where the coloured part starts (a button's cap sits on a
    grey base): the bottom of the prism that ``locate`` fits to the masks."""


NOUNS: dict[str, NounShape] = {
    'ball': NounShape('round', 0.045, 0.045, 0.045),
    'block': NounShape('box', 0.04, 0.04, 0.04),
    'bowl': NounShape('round', 0.13, 0.13, 0.04),
    'button': NounShape('round', 0.04, 0.04, 0.045, base_m=0.03),
    'cube': NounShape('box', 0.04, 0.04, 0.04),
    'cylinder': NounShape('round', 0.04, 0.04, 0.06),
    'hole': NounShape('box', 0.10, 0.10, 0.04, coloured=False),
    'marker': NounShape('cross', 0.06, 0.06, 0.001),
    'peg': NounShape('box', 0.03, 0.03, 0.07),
    'zone': NounShape('box', 0.12, 0.12, 0.002),
}
"""Nominal sizes of the twin's objects (``pyrua_sim.layout``); a ball is fitted as a prism."""
QUALIFIERS: tuple[str, ...] = ('leftmost', 'nearest', 'rightmost')


@dataclass(frozen=True, slots=True)
class ObjectQuery:
    """A parsed query: colour ('' when not given), noun, and qualifier ('' when none)."""

    text: str
    colour: str
    noun: str
    qualifier: str

    @property
    def shape(self) -> NounShape:
        """Return the nominal shape of the noun."""
        return NOUNS[self.noun]

    @property
    def phrase(self) -> str:
        """Return ``'<colour> <noun>'`` without the qualifier (what a segmenter is asked)."""
        return f'{self.colour} {self.noun}'.strip()


def vocabulary() -> str:
    """Return the accepted words, for not-found messages."""
    return (
        f"colours: {', '.join(sorted(COLOURS))}; nouns: {', '.join(sorted(NOUNS))}; "
        f"qualifiers: {', '.join(QUALIFIERS)}"
    )


def parse_query(text: str) -> ObjectQuery | str:
    """
    Parse ``'[qualifier] [colour] <noun>'``; plurals and case are not accepted silently.

    :param text: e.g. ``'red block'``, ``'bowl'``, ``'leftmost green cube'``.
    :returns: the ObjectQuery, or a message saying which word is unknown and listing the
        vocabulary (the caller turns it into a not-found result).
    :raises TypeError: when ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f'query {text!r} is a {type(text).__name__} vs str; pass e.g. "red block"')
    words = text.strip().lower().split()
    qualifier = words.pop(0) if len(words) > 1 and words[0] in QUALIFIERS else ''
    if len(words) == 2 and words[0] not in COLOURS:
        return f'{unknown_name("colour", words[0], COLOURS)}; nouns: {", ".join(sorted(NOUNS))}'
    colour = words.pop(0) if len(words) == 2 else ''
    if len(words) != 1:
        return f'cannot read query {text!r} as "[qualifier] [colour] <noun>"; {vocabulary()}'
    if words[0] not in NOUNS:
        return f'{unknown_name("noun", words[0], NOUNS)}; colours: {", ".join(sorted(COLOURS))}'
    return ObjectQuery(text=text, colour=colour, noun=words[0], qualifier=qualifier)

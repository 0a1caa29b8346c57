"""Refusal messages for unknown names: list the valid ones and suggest the closest."""

from __future__ import annotations

from collections.abc import Iterable
import difflib


def unknown_name(kind: str, name: object, valid: Iterable[str]) -> str:
    """
    Build the message for an unknown ``kind`` called ``name``.

    :param kind: what was looked up, e.g. ``'arm'`` or ``'task'``.
    :param name: the name that was given.
    :param valid: every accepted name.
    :returns: ``"unknown arm 'lft'; did you mean 'left'? Valid: 'left', 'right'"``.
    """
    options = sorted(valid)
    close = difflib.get_close_matches(str(name), options, n=1, cutoff=0.6)
    hint = f'did you mean {close[0]!r}? ' if close else ''
    listed = ', '.join(repr(o) for o in options)
    return f'unknown {kind} {name!r}; {hint}valid: {listed}'

"""The robo facade: names, help text and refusals, built from host primitive descriptions."""

import inspect
import pydoc

from pyrua_agent.runtime.robo import primitive_spec, Robo
import pytest


def locate(query: str, cameras: tuple[str, ...] | None = None, *, cancel=None) -> dict:
    """
    Find ``query`` on the table.

    :returns: the estimate, or a not-found result.
    """
    return {}


def _robo(calls):
    return Robo({'locate': primitive_spec(locate)},
                lambda name, args, kwargs: calls.append((name, args, kwargs)))


def test_calls_are_forwarded_with_name_and_arguments():
    calls = []
    robo = _robo(calls)
    robo.locate('cup', cameras=('head',))
    robo.show('head', note='look')
    assert calls == [('locate', ('cup',), {'cameras': ('head',)}),
                     ('show', ('head',), {'note': 'look'})]


def test_signature_and_help_match_the_host_primitive_without_runtime_keywords():
    robo = _robo([])
    assert str(inspect.signature(robo.locate)) == (
        '(query: str, cameras: tuple[str, ...] | None = None) -> dict')
    text = pydoc.render_doc(robo.locate, renderer=pydoc.plaintext)
    assert 'Find ``query`` on the table.' in text
    assert str(inspect.signature(robo.show)) == "(camera: str, note: str = '') -> None"


def test_dir_lists_primitives_and_show():
    assert dir(_robo([])) == ['locate', 'show']


def test_unknown_names_are_refused_with_a_suggestion():
    typo = 'locat'
    with pytest.raises(AttributeError, match="unknown primitive 'locat'; did you mean 'locate'"):
        getattr(_robo([]), typo)


def test_primitives_cannot_be_replaced_or_deleted():
    robo = _robo([])
    with pytest.raises(AttributeError, match='cannot be assigned'):
        robo.locate = print
    with pytest.raises(AttributeError, match='cannot be deleted'):
        del robo.locate

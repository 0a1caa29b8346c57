from pyrua_primitives.perception import NOUNS, ObjectQuery, parse_query
import pytest


def test_parse_query_reads_qualifier_colour_and_noun():
    q = parse_query('Leftmost red block')
    assert q == ObjectQuery(text='Leftmost red block', colour='red', noun='block',
                            qualifier='leftmost')
    assert q.phrase == 'red block'
    assert parse_query('bowl').colour == ''


def test_parse_query_unknown_colour_suggests_and_lists_vocabulary():
    reason = parse_query('rd block')
    assert isinstance(reason, str)
    assert "unknown colour 'rd'; did you mean 'red'?" in reason
    assert 'nouns: ball, block, bowl, button' in reason


def test_parse_query_unknown_noun_lists_every_noun():
    reason = parse_query('red sphere')
    assert isinstance(reason, str)
    assert "unknown noun 'sphere'" in reason
    for noun in NOUNS:
        assert noun in reason


def test_parse_query_refuses_long_phrases_and_non_strings():
    assert 'cannot read query' in parse_query('big shiny red block')
    with pytest.raises(TypeError, match='pass e.g. "red block"'):
        parse_query(3)

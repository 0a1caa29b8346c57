"""The divergence report names the first differing line of each changed cell."""

from pyrua_agent.replay.divergence import first_difference


def test_first_difference_names_the_line_and_both_texts():
    assert first_difference('a\nb\n', 'a\nb\n') == (0, '', '')
    assert first_difference('a\nx\nc\n', 'a\nb\nc\n') == (2, 'x', 'b')
    assert first_difference('a\n', 'a\nmore\n') == (2, '', 'more')
    assert first_difference('a\nb', 'a\nb\n') == (3, '', '')

"""CappedText: head and tail kept, the cut counted, offsets mapped into the rendered text."""

from pyrua_agent.runtime.output import CappedText
import pytest


def test_text_within_the_limit_is_returned_whole():
    text = CappedText(10)
    text.write('abc')
    text.write('defghij')
    assert text.render() == 'abcdefghij' and text.cut == 0


def test_text_past_the_limit_keeps_head_and_tail_and_counts_the_cut():
    text = CappedText(10)
    for ch in 'abcdefghijklmnopqrstuvwxyz':
        text.write(ch)
    rendered = text.render()
    assert rendered.startswith('abcde\n[... 16 characters cut: output is limited to 10 ')
    assert rendered.endswith('...]\nvwxyz')
    assert text.total == 26


def test_memory_stays_bounded_for_huge_writes():
    text = CappedText(100)
    for _ in range(1000):
        text.write('y' * 10_000)
    assert sum(map(len, text._tail)) <= 100 + 10_000
    assert text.cut == 10_000_000 - 100


def test_offsets_map_into_head_notice_and_tail():
    text = CappedText(10)
    head_at = text.write('abcde')
    middle_at = text.write('c' * 20)
    tail_at = text.write('XY')
    rendered = text.render()
    assert rendered[text.render_offset(head_at):].startswith('abcde')
    assert rendered[text.render_offset(middle_at):].startswith('\n[... ')
    assert rendered[text.render_offset(tail_at):] == 'XY'


def test_tiny_limits_are_refused():
    with pytest.raises(ValueError, match='max_output_chars 1 vs minimum 2'):
        CappedText(1)

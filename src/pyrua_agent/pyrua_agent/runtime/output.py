"""Bounded cell output (head and tail kept) and text made safe for terminals and JSON."""

from __future__ import annotations

from collections import deque
import re


class CappedText:
    """
    Collect text up to ``limit`` characters, keeping the first and last halves.

    Memory stays near ``limit`` however much is written, so a cell printing 50 MB costs
    nothing but time. Positions (for image placeholders) are absolute offsets into the
    uncut stream; ``render_offset`` maps them into the rendered text.

    :param limit: the most characters kept (the cut notice comes on top).
    """

    def __init__(self, limit: int) -> None:
        if limit < 2:
            raise ValueError(f'max_output_chars {limit} vs minimum 2; use at least a few '
                             'hundred characters')
        self.limit = limit
        self._head_limit = limit // 2
        self._tail_limit = limit - self._head_limit
        self._head: list[str] = []
        self._head_len = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self._total = 0

    @property
    def total(self) -> int:
        """Return how many characters were written in all."""
        return self._total

    @property
    def cut(self) -> int:
        """Return how many characters the rendered text leaves out."""
        return max(0, self._total - self.limit)

    def ends_with_newline(self) -> bool:
        """Return True if nothing was written yet or the last character is a newline."""
        if self._tail:
            return self._tail[-1].endswith('\n')
        return not self._head or self._head[-1].endswith('\n')

    def write(self, text: str) -> int:
        """
        Append ``text``.

        :returns: the absolute offset at which ``text`` starts.
        """
        start = self._total
        self._total += len(text)
        room = self._head_limit - self._head_len
        if room > 0 and text:
            part = text[:room]
            self._head.append(part)
            self._head_len += len(part)
            text = text[room:]
        if text:
            self._tail.append(text)
            self._tail_len += len(text)
            while self._tail_len - len(self._tail[0]) >= self._tail_limit:
                self._tail_len -= len(self._tail.popleft())
        return start

    def _notice(self) -> str:
        return (f'\n[... {self.cut} characters cut: output is limited to {self.limit} '
                'characters per cell; print summaries instead of raw data ...]\n')

    def render(self) -> str:
        """Return the text the model reads: all of it, or head + cut notice + tail."""
        head = ''.join(self._head)
        tail = ''.join(self._tail)
        if not self.cut:
            return head + tail
        keep = len(tail) - self._tail_limit
        return head + self._notice() + tail[keep:]

    def render_offset(self, position: int) -> int:
        """Map an absolute write offset to its offset in ``render()``."""
        if not self.cut or position <= self._head_len:
            return position
        tail_start = self._total - self._tail_limit
        notice_at = self._head_len
        if position < tail_start:
            return notice_at
        return notice_at + len(self._notice()) + (position - tail_start)


# C0 controls but newline and tab, DEL, C1 controls, and the bidirectional overrides that
# make a terminal show text in another order than it is stored.
# Invisible characters too (zero-width spaces and joiners, direction marks, the BOM, the
# soft hyphen, invisible operators, line and paragraph separators, and the tag characters
# that can hide ASCII text): what the model, a transcript or a report shows is what it holds.
_UNSAFE = re.compile('[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f'
                     '\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff'
                     '\U000e0000-\U000e007f]')


def valid_unicode(text: str) -> str:
    """Return ``text`` with lone surrogates replaced by U+FFFD, so that it encodes as UTF-8."""
    if text.isascii():
        return text
    try:
        text.encode('utf-8')
    except UnicodeEncodeError:
        # Surrogate pairs written as two escapes combine; lone ones become U+FFFD.
        return text.encode('utf-16', 'surrogatepass').decode('utf-16', 'replace')
    return text


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if 0xD800 <= code <= 0xDFFF:
        return '\ufffd'
    if code < 0x100:
        return f'\\x{code:02x}'
    return f'\\u{code:04x}' if code < 0x10000 else f'\\U{code:08x}'


def terminal_safe(text: str) -> str:
    """
    Return ``text`` safe to print, record as JSON and send to a model.

    Control characters other than newline and tab (ANSI escape sequences start with one),
    bidirectional overrides and marks, and invisible characters (zero-width, tags) are
    shown as escapes (ESC as backslash-x1b, U+200B as backslash-u200b); lone surrogates
    become U+FFFD.
    """
    return _UNSAFE.sub(_escape, text)

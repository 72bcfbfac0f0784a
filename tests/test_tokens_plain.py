"""The faster spellings of the reading's line rules read every text as their plain spellings:
`is_plain` by substring searches, as the pattern anchored on each line reads it."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.formats.markdown import is_plain

# the rule in its plainest spelling: the first line of the range, then each line after a LF
_FIRST = re.compile(r" {0,3}(?:```|~~~|<!--)| {1,3}#")
_AFTER_LF = re.compile(r"\n(?: {0,3}(?:```|~~~|<!--)| {1,3}#)")


def plain_reference(text: str, start: int, end: int) -> bool:
    return _FIRST.match(text, start, end) is None and \
        _AFTER_LF.search(text, start, end) is None


PIECES = st.sampled_from([" ", "  ", "   ", "    ", "\t", "#", "##", "`", "```", "````", "~",
                          "~~~", "<", "<!--", "<!-", "-", "!", "x", "\n", "\r\n", "\n ", "a #"])


@settings(max_examples=4000, deadline=None, derandomize=True)
@given(st.lists(PIECES, max_size=24), st.integers(0, 60), st.integers(0, 60))
def test_is_plain_reads_as_the_line_pattern(pieces: list[str], cut: int, back: int) -> None:
    text = "".join(pieces)
    assert is_plain(text) == plain_reference(text, 0, len(text))
    # from the start of any line, to any end at or after it
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    start = starts[cut % len(starts)]
    end = max(start, len(text) - back % (len(text) + 1))
    assert is_plain(text, start, end) == plain_reference(text, start, end), (start, end)


# `h3_parts`' reading in its pattern's spelling: each `\n###` then a blank, a line end or
# the range's end, the heading's line up to its line end
_H3 = re.compile(r"\n(###)(?![^ \t\r\n])([^\n]*)")
_FIRST_H3 = re.compile(r"(###)(?![^ \t\r\n])([^\n]*)")


def h3_reference(text: str, start: int, first_line: int, end: int,
                 end_line: int) -> list[tuple[str, int, int, int, int]]:
    from mdgrill.formats.markdown import heading_text

    heads = []
    m = _FIRST_H3.match(text, start, end) if start == 0 or text[start - 1] == "\n" else None
    if m is not None:
        heads.append((start, m.group(2)))
    heads += [(h.start(1), h.group(2)) for h in _H3.finditer(text, start, end)]
    parts = []
    for i, (pos, after) in enumerate(heads):
        line = first_line + text.count("\n", start, pos)
        stop, last = (heads[i + 1][0], first_line + text.count("\n", start, heads[i + 1][0])) \
            if i + 1 < len(heads) else (end, end_line)
        parts.append((heading_text(after), line, last, pos, stop))
    return parts


H3_PIECES = st.sampled_from(["###", " ", "\t", "\r", "\n", "#", "x", "####", "\n###", "é",
                             "##", "\r\n", " #", "#\0", "\0"])


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.lists(H3_PIECES, max_size=24), st.integers(0, 60), st.integers(0, 60))
def test_h3_parts_reads_as_its_pattern(pieces: list[str], cut: int, back: int) -> None:
    from mdgrill.formats.markdown import h3_parts

    text = "".join(pieces)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    start = starts[cut % len(starts)]
    end = max(start, len(text) - back % (len(text) + 1))
    first_line = text.count("\n", 0, start)
    end_line = 10_000
    assert h3_parts(text, start, first_line, end, end_line) == \
        h3_reference(text, start, first_line, end, end_line), (start, end)

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

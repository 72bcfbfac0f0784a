"""Both spellings of the line tokenizer (`BULLET_LINE_311` with possessive repeats, taken on
Python 3.11+, and `BULLET_LINE_310` for 3.10) read every line as the bullet grammar's plain
spelling reads it (`test_grammar.PLAIN_BULLET_LINE`), and stay linear on a line of blanks.
`test_grammar` holds the spelling this Python takes; this file holds the other one too."""

from __future__ import annotations

import re
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_grammar import PLAIN_BULLET_LINE, bullet_lines

from mdgrill.formats.progress import lines as grammar

SPELLINGS = [grammar.BULLET_LINE_310]
if sys.version_info >= (3, 11):  # possessive repeats are 3.11's
    SPELLINGS.append(grammar.BULLET_LINE_311)


def test_the_tokenizer_is_the_spelling_of_this_python() -> None:
    spelling = grammar.BULLET_LINE_311 if sys.version_info >= (3, 11) else \
        grammar.BULLET_LINE_310
    assert grammar.BULLET_LINE.pattern == spelling


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10 has one spelling, test_grammar's")
@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.lists(bullet_lines(), min_size=1, max_size=4),
       st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_the_spelling_not_taken_reads_as_the_plain_one(lines: list[str], nl: str,
                                                       last: bool) -> None:
    text = nl.join(lines) + (nl if last else "")
    assert re.compile(grammar.BULLET_LINE_310).findall(text) == \
        PLAIN_BULLET_LINE.findall(text)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_each_spelling_stays_linear_on_a_line_of_blanks(spelling: str) -> None:
    pattern = re.compile(spelling)
    for line in ("- A" + " " * 100_000 + "x", "- A" + " x" * 50_000, "- A" + " " * 100_000,
                 "-" + " " * 100_000, "- A" + " " * 100_000 + ":" + " " * 100_000):
        start = time.process_time()
        pattern.findall(line)
        assert time.process_time() - start < 0.5, line[:20]

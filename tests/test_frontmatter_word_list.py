"""`is_word_list` (str methods in C) answers what the WORD_LIST regex answers, over generated
text: random strings of the characters that matter, and lists of words with one thing
changed (a character, a separator, an empty item, a word starting with a digit...). The
parser and the emitter both take their fast path on its word; the regex stays the spec."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.formats.frontmatter import render_flow, subset
from mdgrill.formats.frontmatter.subset import WORD_LIST as WORD_LIST_SPEC
from mdgrill.formats.frontmatter.subset import is_word_list

WORD_LIST = re.compile(WORD_LIST_SPEC)

CHARS = st.sampled_from(list("[], ,,aZ_09.-x\n\t#:\"'é{}") + ["\u2028", "D1", ", ", "  "])
WORD = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,6}", fullmatch=True)


@settings(max_examples=2000, deadline=None)
@given(text=st.lists(CHARS, max_size=30).map("".join))
def test_random_text(text: str) -> None:
    assert is_word_list(text) == bool(WORD_LIST.match(text))
    assert is_word_list("[" + text + "]") == bool(WORD_LIST.match("[" + text + "]"))


@settings(max_examples=2000, deadline=None)
@given(words=st.lists(WORD, max_size=12), at=st.integers(0, 200),
       change=st.sampled_from(["", ",", " ", ", ", "0", ".", "-", "x", "[", "]", "é", "\n",
                               ", , ", ",,", "  ", "#", "_", "a"]),
       cut=st.integers(0, 2))
def test_lists_of_words_with_one_thing_changed(words: list[str], at: int, change: str,
                                               cut: int) -> None:
    text = "[" + ", ".join(words) + "]"
    assert is_word_list(text) and WORD_LIST.match(text)
    at = min(at, len(text))
    edited = text[:at] + change + text[at + cut:]
    assert is_word_list(edited) == bool(WORD_LIST.match(edited)), edited


def test_the_parser_reads_a_long_list_as_before() -> None:
    ids = [f"D{i}" for i in range(1, 10_001)]
    text = "[" + ", ".join(ids) + "]"
    assert subset.parse_subset([f"asked: {text}"], 1, "p") == {"asked": ids}
    assert render_flow(ids) == text
    assert render_flow(["D1", "2x"]) == "[D1, \"2x\"]"  # not a word: rendered item by item

"""The front matter subset's shapes, read by str methods (`is_plain_key`, `is_plain_int`,
`safe_plain`, `key_line`), answer what their regexes (the spec, kept in `subset`) answer, over
generated text: the characters each class holds and the ones next to it (non-ASCII letters
and digits, line ends, blanks, tabs, YAML indicators)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.formats.frontmatter import subset

CHARS = st.sampled_from(list("aZ_09-.:/@()+,' \t\n\r#\"[]{}é²١ſK") + ["\u2028", "\x85", "key",
                                                                         ": ", "-0", "00"])
TEXT = st.lists(CHARS, max_size=14).map("".join)


def _match(pattern: str, text: str) -> re.Match[str] | None:
    return re.match(pattern, text)


def _reads_as_the_regexes(text: str) -> None:
    """Each str-method reader says of `text` what its regex (kept as the spec) says."""
    assert subset.is_plain_key(text) == bool(_match(subset.PLAIN_KEY, text)), text
    assert subset.is_plain_int(text) == bool(_match(subset.PLAIN_INT, text)), text
    assert subset.safe_plain(text, False) == bool(_match(subset.SAFE_PLAIN, text)), text
    assert subset.safe_plain(text, True) == bool(_match(subset.SAFE_PLAIN_FLOW, text)), text
    m = _match(subset.KEY_LINE, text)
    assert subset.key_line(text) == (None if m is None else (m.group(1), m.group(2))), text


@settings(max_examples=3000, deadline=None)
@given(text=TEXT)
def test_each_shape_reads_as_its_regex(text: str) -> None:
    _reads_as_the_regexes(text)


@settings(max_examples=2000, deadline=None)
@given(key=st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,5}", fullmatch=True),
       blanks=st.sampled_from(["", " ", "\t", "  \t", ":", " :"]), value=TEXT)
def test_key_lines_read_as_the_regex_reads_them(key: str, blanks: str, value: str) -> None:
    for text in (key + ":" + blanks + value, key + ":", key + ": " + value, key + blanks):
        m = _match(subset.KEY_LINE, text)
        assert subset.key_line(text) == (None if m is None else (m.group(1), m.group(2))), text


@settings(max_examples=1000, deadline=None)
@given(number=st.integers(-10**6, 10**6), pad=st.sampled_from(["", "0", "-", "+", " ", "²"]))
def test_numbers_read_as_the_regex_reads_them(number: int, pad: str) -> None:
    for text in (str(number), pad + str(number), str(number) + pad):
        assert subset.is_plain_int(text) == bool(_match(subset.PLAIN_INT, text)), text


def test_every_short_text_reads_as_the_regexes_read_it() -> None:
    alphabet = "aZ_0-1.:/@(,' \t\n\r#é²"
    texts = [""] + list(alphabet)
    texts += [a + b for a in alphabet for b in alphabet]
    texts += [a + b + c for a in alphabet for b in alphabet for c in "a0-: \t\n"]
    for text in texts:
        _reads_as_the_regexes(text)

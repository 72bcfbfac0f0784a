"""A spliced text (`TextFile.spliced`): a file's text with character ranges replaced, read
from its parts until something reads it whole. What a write streams and what the check
before it reads must be what the whole new text gives, byte for byte:

- its text is `apply_splices` of the old one;
- its pieces are the new text's bytes (the old text's own bytes where they are reused: an
  ASCII text read from a file, BOM and CRLF kept);
- a slice, a comparison, its leading lines, whether it is ASCII and whether it encodes are
  those of the whole text;
- and a command writes it without making it whole (at 10,000 decisions the whole text was
  two copies of 3.3 MB: ~1,600 fresh pages, ~7 ms of a verb).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.errors import InputError
from mdgrill.formats.frontmatter import split
from mdgrill.formats.textfile import TextFile, apply_splices, decode
from mdgrill.shell import session

CHARS = st.sampled_from(["a", "b", "-", "#", " ", "\n", "\r\n", "é", "\u2028", "\U0001f600",
                         "---\n", "x: 1\n"])
TEXTS = st.lists(CHARS, max_size=40).map("".join)


@st.composite
def cases(draw: st.DrawFn) -> tuple[TextFile, list[tuple[int, int, str]]]:
    """An old text (read from bytes or made in memory, with or without a BOM) and
    non-overlapping splices of it."""
    text = draw(TEXTS)
    bom = draw(st.booleans())
    if draw(st.booleans()):
        old = decode((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    else:
        old = TextFile(text, bom)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=6)))
    pairs = list(zip(cuts[::2], cuts[1::2], strict=False))
    splices = [(lo, hi, draw(TEXTS)) for lo, hi in pairs]
    return old, draw(st.permutations(splices))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(cases(), st.data())
def test_a_spliced_text_reads_as_the_whole_new_text(case: tuple[TextFile, list[tuple[int, int,
                                                                                     str]]],
                                                    data: st.DataObject) -> None:
    old, splices = case
    new_text = apply_splices(old.text, splices)
    whole = old.with_text(new_text)
    spliced = old.spliced(splices)
    assert b"".join(spliced.pieces(size=3)) == whole.encode()
    # ASCII is told from the parts: never wrong when it says so, and said when they all are
    assert spliced.known_ascii() is (old.text.isascii() and all(
        new.isascii() for _, _, new in splices))
    assert not spliced.known_ascii() or new_text.isascii()
    assert whole.known_ascii() is new_text.isascii()
    assert whole.leading() == (new_text, True)
    lead, is_whole = spliced.leading()
    assert new_text.startswith(lead) and (lead == "" or lead.endswith("\n") or is_whole)
    assert is_whole is (not splices) and (not is_whole or lead == new_text)
    start = data.draw(st.integers(0, len(new_text)))
    end = data.draw(st.integers(start, len(new_text)))
    assert spliced.slice(start, end) == new_text[start:end]
    source = data.draw(st.sampled_from([old.text, new_text, new_text + "z"]))
    lo = data.draw(st.integers(0, len(source)))
    hi = data.draw(st.integers(lo, len(source)))
    at = data.draw(st.integers(0, len(new_text)))
    same = new_text[at:at + hi - lo] == source[lo:hi]
    assert spliced.same_at(at, source, lo, hi) is same and whole.same_at(at, source, lo, hi) \
        is same
    assert spliced._text is None  # none of the above made it whole
    # the front matter is read from the leading lines, or from the whole text when its
    # fences do not close there (then made whole)
    assert _fences(spliced) == _fences(whole)
    assert spliced.text == new_text and spliced.encode() == whole.encode()


def _fences(tf: TextFile) -> object:
    """What `split` makes of a text: its fences, None, or the error it raises."""
    try:
        fm = split(tf, "p")
    except InputError as exc:
        return exc.message
    return None if fm is None else (fm.head, fm.end_offset, fm.open, fm.close)


def test_the_front_matter_is_read_past_the_first_splice_when_it_closes_later() -> None:
    # the first splice puts in only the front matter's first lines: its fence closes in the
    # text after it, which is read then (never a MALFORMED_FILE the whole text would not be)
    old = TextFile("---\na: 1\nb: 2\n---\n# T\n")
    spliced = old.spliced([(0, 9, "---\na: 3\n")])
    fm = split(spliced, "p")
    assert fm is not None and fm.end_offset == len("---\na: 3\nb: 2\n---\n")
    unclosed = TextFile("---\na: 1\n").spliced([(0, 4, "---\n")])
    with pytest.raises(InputError, match="never closed"):
        split(unclosed, "p")


def test_a_lone_surrogate_put_in_is_refused_before_anything_is_made_whole() -> None:
    old = decode("---\nx: é\n---\n".encode())
    spliced = old.spliced([(4, 9, "x: \ud800\n")])
    assert not spliced.known_ascii()
    with pytest.raises(UnicodeEncodeError):
        session.encodable(spliced)
    assert spliced._text is None
    fine = old.spliced([(4, 9, "x: \u00e8\n")])
    assert session.encodable(fine) is fine and fine._text is None


def test_overlapping_splices_are_refused_when_made() -> None:
    with pytest.raises(ValueError, match="overlapping"):
        TextFile("abcdef").spliced([(0, 3, "x"), (2, 4, "y")])


def test_a_recorded_answer_is_written_without_the_new_text_made_whole(tmp_path) -> None:
    """The write of a command streams the spliced text and checks it from its parts: the
    text kept for the next read is still in parts when the command is done (a CLI process
    ends there; a server makes it whole on its next read)."""
    from mdgrill.api import Spec

    spec = Spec.init(str(tmp_path / "s"), goal="Pick a login flow")
    spec.begin_interview(phase="requirements", interview_id="r1")
    spec.open_frontier(round=1, decision_ids=["D1"])
    session.PARSED.clear()
    spec.record_answer("D1", "Use the magic link")
    kept = [data for data, _, _ in session.PARSED._entries.values() if isinstance(data, TextFile)]
    assert kept and all(tf._text is None for tf in kept)
    text = (tmp_path / "s" / ".progress.md").read_text(encoding="utf-8")
    assert "- Decisions: D1 -> Use the magic link" in text
    assert kept[0].text == text  # what is kept reads as what was written


def test_the_fences_read_from_a_prefix_are_the_whole_text_s() -> None:
    """The front matter's fences and the line an unclosed one is reported at, as a write's
    check reads them from a spliced text's leading lines and a load from the whole text."""
    for tf in (TextFile("---\na: 1\n---\n# T\n"),
               decode(b"---\na: 1\n---\n# T\n").spliced([(4, 8, "a: 2")])):
        fm = split(tf, "p")
        assert fm is not None and (fm.open, fm.close, fm.end_offset) == (0, 2, 13)
    with pytest.raises(InputError) as info:
        split(TextFile("---\na: 1\n"), "p")
    assert info.value.line == 1

"""TextFile: decode keeps every byte; line edits leave every other line identical."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.errors import InputError
from mdgrill.formats.textfile import Edit, apply_edits, apply_splices, content, decode, split_lines

line_text = st.text(st.characters(blacklist_characters="\n\r\x00", blacklist_categories=("Cs",)),
                    max_size=20)


@st.composite
def files(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(line_text, max_size=12))
    ends = draw(st.lists(st.sampled_from(["\n", "\r\n"]), min_size=len(lines),
                         max_size=len(lines)))
    text = "".join(a + b for a, b in zip(lines, ends, strict=True))
    if draw(st.booleans()) and text:
        text = text.rstrip("\r\n")
    bom = b"\xef\xbb\xbf" if draw(st.booleans()) else b""
    return bom + text.encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(files())
def test_decode_encode_round_trip(data: bytes) -> None:
    tf = decode(data, "f")
    assert tf.encode() == data
    assert "".join(tf.lines) == tf.text
    assert tf.bom == data.startswith(b"\xef\xbb\xbf")


@settings(max_examples=300, deadline=None)
@given(files(), st.data())
def test_edit_keeps_other_lines(data: bytes, draw: st.DataObject) -> None:
    tf = decode(data, "f")
    n = len(tf.lines)
    start = draw.draw(st.integers(0, n))
    end = draw.draw(st.integers(start, n))
    new = draw.draw(st.lists(line_text, max_size=3))
    out = apply_edits(tf, [Edit(start, end, new)])
    lines = out.lines
    assert lines[:start - 1 if start else 0] == tf.lines[:start - 1 if start else 0]
    tail = tf.lines[end:]
    assert lines[len(lines) - len(tail):] == tail if tail else True
    assert [content(x) for x in lines[start:start + len(new)]] == new
    assert out.bom == tf.bom
    for added in lines[start:start + len(new)]:
        assert added.endswith(tf.newline)


def test_crlf_file_stays_crlf() -> None:
    tf = decode(b"a\r\nb\r\nc\r\n", "f")
    out = apply_edits(tf, [Edit(1, 2, ["B", "B2"])])
    assert out.encode() == b"a\r\nB\r\nB2\r\nc\r\n"
    tf = decode(b"\xef\xbb\xbfa\nb", "f")
    assert apply_edits(tf, [Edit(2, 2, ["c"])]).encode() == b"\xef\xbb\xbfa\nb\nc\n"


def test_split_lines_only_on_lf() -> None:
    assert split_lines("a\u2028b\x0bc\rd\ne") == ["a\u2028b\x0bc\rd\n", "e"]


def test_overlapping_edits_refused() -> None:
    tf = decode(b"a\nb\nc\n", "f")
    with pytest.raises(ValueError):
        apply_edits(tf, [Edit(0, 2, []), Edit(1, 3, [])])
    with pytest.raises(ValueError):
        apply_splices("abc", [(0, 2, "x"), (1, 3, "y")])


@pytest.mark.parametrize(("data", "code"), [
    (b"ok\n\x00x", "MALFORMED_FILE"), (b"caf\xe9\n", "MALFORMED_FILE"),
    (b"\xff\xfe", "MALFORMED_FILE"),
])
def test_decode_refuses(data: bytes, code: str) -> None:
    with pytest.raises(InputError) as info:
        decode(data, "f.md")
    assert info.value.code == code and info.value.line == 1 or info.value.line == 2


def test_decode_refuses_oversize() -> None:
    with pytest.raises(InputError) as info:
        decode(b"x" * 101, "f.md", limit=100)
    assert info.value.code == "FILE_TOO_LARGE"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_decode_arbitrary_bytes(data: bytes) -> None:
    try:
        tf = decode(data, "f")
    except InputError as exc:
        assert exc.code == "MALFORMED_FILE"
    else:
        assert tf.encode() == data

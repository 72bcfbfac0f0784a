"""A write streams its text (`TextFile.pieces`) instead of making the file's bytes whole.

Held here: the pieces are `encode()` cut up, over generated text (ASCII and not, BOM, CRLF,
lone surrogates, any piece size); `atomic_write` of a TextFile leaves exactly the bytes of
its `encode()`, and one that cannot encode raises with nothing written and no temp file
left; the parse a write keeps for its text is found again by the bytes it wrote.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdgrill.formats.textfile import TextFile
from mdgrill.shell import session, store

TEXT = st.text(alphabet=st.one_of(
    st.sampled_from("ab-\n\r#: [],D1"), st.characters(), st.sampled_from("\ud800\udc00é\u2028")),
    max_size=300)


@settings(max_examples=300, deadline=None)
@given(text=TEXT, bom=st.booleans(), size=st.integers(1, 70))
def test_the_pieces_are_the_encoded_text_cut_up(text: str, bom: bool, size: int) -> None:
    tf = TextFile(text, bom)
    try:
        whole = tf.encode()
    except UnicodeEncodeError:
        with pytest.raises(UnicodeEncodeError):
            b"".join(tf.pieces(size))
        return
    assert b"".join(tf.pieces(size)) == whole
    assert b"".join(tf.pieces()) == whole


@settings(max_examples=60, deadline=None)
@given(text=TEXT, bom=st.booleans())
def test_writing_a_text_leaves_the_bytes_its_encode_gives(tmp_path_factory: pytest.TempPathFactory,
                                                          text: str, bom: bool) -> None:
    folder = tmp_path_factory.mktemp("w")
    target = folder / ".progress.md"
    target.write_bytes(b"old")
    tf = TextFile(text, bom)
    try:
        whole = tf.encode()
    except UnicodeEncodeError:
        with pytest.raises(UnicodeEncodeError):
            store.atomic_write(str(target), tf, expect=b"old")
        assert target.read_bytes() == b"old"  # nothing written, no temp file left
        assert sorted(p.name for p in folder.iterdir()) == [".progress.md"]
        return
    store.atomic_write(str(target), tf, expect=b"old")
    assert target.read_bytes() == whole
    assert sorted(p.name for p in folder.iterdir()) == [".progress.md"]


def test_a_large_text_is_written_whole_and_an_editors_save_still_refused(tmp_path: Path) -> None:
    target = tmp_path / ".progress.md"
    old = b"x" * 300_000
    target.write_bytes(old)
    tf = TextFile("line of the new file\n" * 20_000)
    store.atomic_write(str(target), tf, expect=old)
    assert target.read_bytes() == tf.encode()
    with pytest.raises(store.FileChanged):  # the compare before the rename is unchanged
        store.atomic_write(str(target), TextFile("other\n"), expect=old)
    assert target.read_bytes() == tf.encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".progress.md"]


def test_what_a_transaction_writes_for_a_text() -> None:
    ascii_tf = TextFile("---\nmdgrill: 1\n---\n")
    assert session.encodable(ascii_tf) is ascii_tf  # streamed by the write
    other = TextFile("---\ngoal: café\n---\n", bom=True)
    assert session.encodable(other) is other  # streamed the same way, once it encodes
    with pytest.raises(UnicodeEncodeError):
        session.encodable(TextFile("lone \ud800 surrogate"))


def test_a_parse_kept_for_a_written_text_is_found_by_its_bytes() -> None:
    cache = session.ParseCache()
    tf = TextFile("some text\n", bom=True)
    made: list[int] = []

    def parse() -> object:
        made.append(1)
        return session.Progress(TextFile("---\nmdgrill: 1\n---\n"), "p")

    cache.put(("f", "f"), tf, parse, True)  # type: ignore[arg-type]
    assert cache.get(("f", "f"), b"other bytes", True) is None
    assert not made
    found = cache.get(("f", "f"), tf.encode(), True)
    assert found is not None and made == [1]
    assert cache.get(("f", "f"), tf.encode(), True) is found

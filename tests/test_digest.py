"""The context digest (`model/digest.py`) computed independently here: a change in how it
frames or orders its parts would change every digest recorded in every spec."""

from __future__ import annotations

from hashlib import sha256

from mdgrill.model.digest import RALPH_MARKER, context_digest


def framed(*parts: bytes) -> bytes:
    return b"".join(str(len(p)).encode("ascii") + b":" + p for p in parts)


def test_sources_are_framed_in_path_order_whatever_their_bytes_or_order_given() -> None:
    # the path order (a < b) differs from the byte order (b"1" < b"2") and from the order given
    sources = [("specs/x/b.md", b"1"), ("specs/x/a.md", b"2")]
    expected = sha256(framed(b"mdgrill-context-v1", b"design", "goal ü".encode(),
                             b"specs/x/a.md", b"2", b"specs/x/b.md", b"1")).hexdigest()
    assert context_digest("design", "goal ü", sources) == expected
    assert context_digest("design", "goal ü", sources[::-1]) == expected


def test_smart_ralphs_marker_gives_its_own_digest() -> None:
    expected = sha256(framed(RALPH_MARKER, b"requirements", b"g")).hexdigest()
    assert context_digest("requirements", "g", [], marker=RALPH_MARKER) == expected
    assert context_digest("requirements", "g", []) != expected

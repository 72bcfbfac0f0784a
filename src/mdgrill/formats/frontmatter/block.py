"""The front matter block: where it is, its top-level keys' line spans, and loading it."""

from __future__ import annotations

import re

from mdgrill.errors import InputError
from mdgrill.formats.frontmatter.safe_yaml import load_with_pyyaml
from mdgrill.formats.frontmatter.subset import NotSubset, parse_subset
from mdgrill.formats.textfile import TextFile, content

MISSING = object()


class FrontMatter:
    """Where the front matter is: lines [open, close] are the `---` fences (0-based)."""

    __slots__ = ("open", "close", "data", "spans", "exact", "head", "end_offset")

    def __init__(self, open_line: int, close_line: int) -> None:
        self.open = open_line
        self.close = close_line
        self.data: dict[str, object] = {}
        self.spans: dict[str, tuple[int, int]] = {}
        self.exact = True  # False when PyYAML was needed (the file holds more than our subset)
        self.head: list[str] = []  # the lines up to and including the closing fence
        self.end_offset = 0

    @property
    def body_start(self) -> int:
        return self.close + 1


def split(tf: TextFile, path: str) -> FrontMatter | None:
    """The front matter's fences, or None when the file has none (reads only the head: of a
    spliced text, what its first splice leaves or puts there, `TextFile.leading`, unless the
    fences are not closed in it)."""
    lead, whole = tf.leading()
    if lead or whole:
        found = _fences(lead, path, whole)
        if found is not _FURTHER:
            return found  # type: ignore[return-value]
    return _fences(tf.text, path, True)  # type: ignore[return-value]


# `_fences` of a prefix that ends before the closing fence: read the whole text
_FURTHER = object()


def _fences(text: str, path: str, whole: bool) -> FrontMatter | None | object:
    """`split` of `text`, the whole text or (`whole` False) a prefix of it ending in a line
    end, where an unclosed front matter is `_FURTHER`."""
    first_end = text.find("\n")
    first = text if first_end < 0 else text[:first_end]
    if first.rstrip() != "---":
        return None
    head = [text[:first_end + 1]] if first_end >= 0 else [text]
    pos = first_end + 1 if first_end >= 0 else len(text)
    while pos < len(text):
        eol = text.find("\n", pos)
        nxt = len(text) if eol < 0 else eol + 1
        line = text[pos:nxt]
        head.append(line)
        c = content(line).rstrip()
        if c == "---" or c == "...":
            fm = FrontMatter(0, len(head) - 1)
            fm.head = head
            fm.end_offset = nxt
            return fm
        pos = nxt
    if not whole:
        return _FURTHER
    raise InputError("MALFORMED_FILE",
                     f"{path}:1:1: the front matter opened by `---` on line 1 is never closed: "
                     "add a `---` line after the last key", path=path, line=1)


def load(tf: TextFile, fm: FrontMatter, path: str) -> FrontMatter:
    """Parse the front matter into `fm.data` and record each top-level key's line span."""
    lines = [content(line) for line in fm.head[fm.open + 1:fm.close]]
    base = fm.open + 1
    try:
        data = parse_subset(lines, base, path)
        fm.exact = True
    except NotSubset:
        data = load_with_pyyaml("\n".join(lines) + "\n", base, path)
        fm.exact = False
    fm.data = data
    fm.spans = top_level_spans(lines, base)
    return fm


def top_level_spans(lines: list[str], base: int) -> dict[str, tuple[int, int]]:
    """Line span [start, end) of each top-level key, including its indented continuation."""
    spans: dict[str, tuple[int, int]] = {}
    current: str | None = None
    start = 0
    for i, line in enumerate(lines):
        if not line or line[0] in " \t":
            continue
        if current is not None:
            spans[current] = (base + start, base + _trim_blank_tail(lines, start, i))
            current = None
        if line[0] in "#-":
            continue
        key = top_key(line)
        if key is not None:
            current = key
            start = i
    if current is not None:
        spans[current] = (base + start, base + _trim_blank_tail(lines, start, len(lines)))
    return spans


def _trim_blank_tail(lines: list[str], start: int, end: int) -> int:
    while end - 1 > start and not lines[end - 1].strip():
        end -= 1
    return end


def top_key(line: str) -> str | None:
    """The key a top-level `key: value` line opens (a quoted key without its quotes), or None.
    A plain key runs to the line's first colon, which a blank or the line's end must follow:
    read by hand, where a lazy key before optional blanks was quadratic on a line of them."""
    if line[:1] == '"':
        # compiled on first use (re's cache keeps it): few front matters quote a key
        m = re.match(r'"((?:[^"\\]|\\.)*)"[ \t]*:(?:[ \t]|$)', line)
        return m.group(1) if m else None
    if not line or line[0].isspace() or line[0] in "#:'":
        return None
    colon = line.find(":")
    if colon < 0 or line[colon + 1:] not in ("", "\n") and line[colon + 1] not in " \t":
        return None
    return line[:colon].rstrip(" \t")

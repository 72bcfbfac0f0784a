"""A fence-aware line scanner for ATX headings: the cheap way to find every block of a file.

A regular expression finds the few candidate lines (headings, fence openers, HTML comment
openers) at C speed; only those are looked at in Python. Headings inside fenced code or an
HTML comment block are not headings.
"""

from __future__ import annotations

import re

_CANDIDATE = re.compile(r"^ {0,3}(?:#{1,6}(?=[ \t\r]|$)|`{3,}|~{3,}|<!--)", re.M)
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*\r?$")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")
_fence_close_cache: dict[tuple[str, int], re.Pattern[str]] = {}


class Heading:
    """An ATX heading: level, text (trimmed), 0-based line, and its offset in the text."""

    __slots__ = ("level", "text", "line", "offset")

    def __init__(self, level: int, text: str, line: int, offset: int) -> None:
        self.level = level
        self.text = text
        self.line = line
        self.offset = offset

    def __repr__(self) -> str:
        return f"Heading({self.level}, {self.text!r}, line={self.line})"


def _fence_close(char: str, size: int) -> re.Pattern[str]:
    key = (char, size)
    pattern = _fence_close_cache.get(key)
    if pattern is None:
        pattern = re.compile(r"^ {0,3}" + re.escape(char) + "{" + str(size) + r",}[ \t]*\r?$",
                             re.M)
        _fence_close_cache[key] = pattern
    return pattern


def scan_headings(text: str, start: int = 0, first_line: int = 0) -> list[Heading]:
    """Every ATX heading from offset `start` (which begins line `first_line`)."""
    headings: list[Heading] = []
    pos = start
    line = first_line
    end = len(text)
    while pos < end:
        m = _CANDIDATE.search(text, pos)
        if m is None:
            break
        line += text.count("\n", pos, m.start())
        pos = m.start()
        eol = text.find("\n", pos)
        if eol < 0:
            eol = end
        raw = text[pos:eol]
        marker = m.group(0).lstrip(" ")
        if marker.startswith("#"):
            hm = _HEADING.match(raw)
            if hm is not None:
                headings.append(Heading(len(hm.group(1)), (hm.group(2) or "").strip(), line, pos))
            next_pos = eol + 1
        elif marker.startswith("<!--"):
            close = text.find("-->", pos + 4)
            close_eol = end if close < 0 else text.find("\n", close)
            next_pos = end if close_eol < 0 else close_eol + 1
        else:
            fm = _FENCE_OPEN.match(raw)
            fence = fm.group(1) if fm else marker
            if fence[0] == "`" and fm is not None and "`" in fm.group(2):
                next_pos = eol + 1  # a backtick fence's info string may not hold a backtick
            else:
                closer = _fence_close(fence[0], len(fence)).search(text, eol + 1)
                close_eol = end if closer is None else text.find("\n", closer.start())
                next_pos = end if close_eol < 0 else close_eol + 1
        line += text.count("\n", pos, min(next_pos, end))
        pos = next_pos
    return headings


class Section:
    """A part of a document under one heading: heading line, then lines [start, end)."""

    __slots__ = ("title", "level", "heading_line", "start", "end")

    def __init__(self, title: str, level: int, heading_line: int, start: int, end: int) -> None:
        self.title = title
        self.level = level
        self.heading_line = heading_line
        self.start = start
        self.end = end

    def __repr__(self) -> str:
        return f"Section({self.title!r}, lines {self.heading_line}..{self.end})"


def sections(headings: list[Heading], level: int, total_lines: int,
             within: tuple[int, int] | None = None) -> list[Section]:
    """Split at headings of `level`; a heading of a higher rank (smaller number) also ends one."""
    lo, hi = within if within is not None else (0, total_lines)
    out: list[Section] = []
    current: Heading | None = None
    for h in headings:
        if h.line < lo or h.line >= hi:
            continue
        if h.level <= level:
            if current is not None:
                out.append(Section(current.text, current.level, current.line, current.line + 1,
                                   h.line))
            current = h if h.level == level else None
    if current is not None:
        out.append(Section(current.text, current.level, current.line, current.line + 1, hi))
    return out

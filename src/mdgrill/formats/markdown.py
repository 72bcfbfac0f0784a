"""The Markdown line rules mdgrill reads by: ATX headings, code fences, HTML comments.

One home for them: `.progress.md` is scanned here whole (a regular expression finds the few
candidate lines at C speed; headings inside fenced code or an HTML comment block are not
headings), and the glossary's line classifier asks the same rules one line at a time
(`atx_heading`, `fence_opener`, `fence_closer`).
"""

from __future__ import annotations

import re
from itertools import accumulate, repeat

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


def fence_closer(char: str, size: int) -> re.Pattern[str]:
    """The line that closes a fence of `size` `char`s: at least as many, then only spaces.
    Anchored per line (`re.M`): `.search` finds it in a text, `.match` tests one line."""
    key = (char, size)
    pattern = _fence_close_cache.get(key)
    if pattern is None:
        pattern = re.compile(r"^ {0,3}" + re.escape(char) + "{" + str(size) + r",}[ \t]*\r?$",
                             re.M)
        _fence_close_cache[key] = pattern
    return pattern


def is_opener(run: str, info: str) -> bool:
    """Whether a fence run opens code: a backtick fence's info string may not hold a backtick
    (CommonMark), so ```` ```a`b ```` is text."""
    return not (run[0] == "`" and "`" in info)


# A line's fence run and its ATX heading: compiled where used (`re` keeps them), as only the
# glossary and spec-kit readers ask line by line; compiling them cost every verb's start.
_FENCE_OPEN = r" {0,3}(`{3,}|~{3,})(.*)"
_ATX = r" {0,3}(#{1,6})((?:[ \t][^\n]*)?)\Z"


def fence_opener(line: str) -> str | None:
    """The fence run (three or more backticks or tildes) a line opens, or None."""
    m = re.match(_FENCE_OPEN, line)
    return m.group(1) if m is not None and is_opener(m.group(1), m.group(2)) else None


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, text) of one line (without its newline) that is an ATX heading, else None."""
    m = re.match(_ATX, line)
    return None if m is None else (len(m.group(1)), heading_text(m.group(2)))


_SCAN_BODY = r"( {0,3})(?:(#{%s})((?:[ \t\r][^\n]*)?)$|(`{3,}|~{3,})([^\n]*)|<!--)"
# Anchored on the newline before a line, not on `^` with re.M: the engine then skips to the
# next newline at C speed, four times faster on a large file. The first line is matched apart.
# Compiled where they are used (`re` keeps them after the first time): only a text with a
# fence, a comment or an indented `#` needs them, and compiling the four cost every verb's
# start 0.8 ms.
# Without fences, comments or indented `#`s a heading line starts with `\n#`: its `#`s, then
# a space, a tab, a CR or the line's end. `#(?!##)#?` turns down a `###` line at its first
# `#` (the skeleton scan meets 10,000 of them); `#{1,2}` would backtrack through it.
_FLUSH_BODY = r"(%s)(?![^ \t\r\n])([^\n]*)"
_FLUSH_TOP = re.compile("\n" + _FLUSH_BODY % "#(?!##)#?")
_FLUSH_FIRST_TOP = re.compile(_FLUSH_BODY % "#(?!##)#?")
# Headings of every level, and `###` parts: compiled where used (`re` keeps them), as the
# skeleton scan of every verb needs only the two above
_FLUSH = "\n" + _FLUSH_BODY % "#{1,6}"
_FLUSH_FIRST = _FLUSH_BODY % "#{1,6}"
# A line that opens a fence or an HTML comment, or one whose `#` is indented (the first line
# of a range, matched apart; the others are found by `is_plain`'s searches)
_UNPLAIN_FIRST = re.compile(r" {0,3}(?:```|~~~|<!--)| {1,3}#")
# A line after the range's first that starts with 1-3 blanks and a `#` (an indented heading
# or the like): one search for it, the engine's literal `\n` loop, takes half the time of
# `str.find(" #")`, whose blanks are everywhere in prose
_INDENTED_HASH = re.compile(r"\n {1,3}#")


def heading_text(after_hashes: str) -> str:
    """An ATX heading's text from what follows its `#`s: trimmed, closing `#`s dropped."""
    body = after_hashes.strip(" \t\r")
    if body.endswith("#"):
        trimmed = body.rstrip("#")
        if not trimmed or trimmed[-1] in " \t":
            body = trimmed
    return body.strip()


def _candidates(text: str, start: int, top_only: bool, end: int) -> list[re.Match[str]]:
    body = _SCAN_BODY % ("1,2" if top_only else "1,6")
    scan, first = re.compile("\n" + body, re.M), re.compile(body, re.M)
    head = first.match(text, start, end) if start == 0 or text[start - 1] == "\n" else None
    found = list(scan.finditer(text, start, end))
    return [head, *found] if head is not None else found


def is_plain(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether no line in [start, end) opens a fence or a comment or has an indented `#`:
    then every heading line starts with `\\n#` (`start` begins a line).

    Read by substring searches, each mark's first place on a line tested for what comes
    before it on that line: a search runs at memchr-like speed, where a pattern anchored on
    each line's newline tried a match at every line (a tenth of `validate`'s reading)."""
    end = len(text) if end is None else end
    if _UNPLAIN_FIRST.match(text, start, end) is not None:
        return False
    if "#" in text and _INDENTED_HASH.search(text, start, end) is not None:
        return False
    find = text.find
    # each mark, the most blanks before it on its line, and a character of it that, found
    # nowhere (at memchr speed), rules it out
    for mark, most, char in (("```", 3, "`"), ("~~~", 3, "~"), ("<!--", 3, "<")):
        if find(char, start, end) < 0:
            continue
        at = find(mark, start, end)
        while at >= 0:
            # a mark on the range's first line was matched above: only the lines after count
            line = text.rfind("\n", start, at) + 1
            if line and at - line <= most and not text[line:at].strip(" "):
                return False
            # a later mark on this line has more before it: go on from the next line
            eol = find("\n", at, end)
            if eol < 0:
                break
            at = find(mark, eol + 1, end)
    return True


def scan_headings(text: str, start: int = 0, first_line: int = 0,
                  top_only: bool = False, end: int | None = None,
                  plain: bool | None = None) -> list[Heading]:
    """Every ATX heading from offset `start` (which begins line `first_line`).

    `top_only` finds only H1 and H2 headings: the cheap skeleton of a 10,000-round file.
    `plain` is `is_plain(text, start, end)` when the caller knows it already.
    """
    end = len(text) if end is None else end
    if plain is None:
        plain = is_plain(text, start, end)
    if plain:
        return _flush_headings(text, start, first_line, top_only, end)
    return _scan(text, start, first_line, top_only, end)


def _scan(text: str, start: int, first_line: int, top_only: bool, end: int) -> list[Heading]:
    # One finditer pass; a fence or an HTML comment sets `skip_to` past its end, and the
    # candidates inside it are dropped. Heading text is trimmed with str methods, not a
    # backtracking pattern (this runs once per heading of a 10,000-round file).
    headings: list[Heading] = []
    append = headings.append
    count = text.count
    skip_to = start
    line = first_line
    last = start
    for m in _candidates(text, start, top_only, end):
        pos = m.start(1)
        if pos < skip_to:
            continue
        line += count("\n", last, pos)
        last = pos
        hashes = m.group(2)
        if hashes is not None:
            append(Heading(len(hashes), heading_text(m.group(3)), line, pos))
            continue
        fence = m.group(4)
        if fence is not None:
            if not is_opener(fence, m.group(5)):
                continue
            closer = fence_closer(fence[0], len(fence)).search(text, m.end() + 1)
            close_eol = -1 if closer is None else text.find("\n", closer.start())
        else:
            close = text.find("-->", pos + 4)
            close_eol = -1 if close < 0 else text.find("\n", close)
        skip_to = end if close_eol < 0 else close_eol + 1
    return headings


def _flush_headings(text: str, start: int, first_line: int, top_only: bool,
                    end: int) -> list[Heading]:
    """scan_headings where no line opens a fence or a comment and no `#` is indented: every
    candidate starts with `\\n#`, a prefix the regex engine finds at C speed."""
    scan, first = (_FLUSH_TOP, _FLUSH_FIRST_TOP) if top_only else \
        (re.compile(_FLUSH), re.compile(_FLUSH_FIRST))
    headings: list[Heading] = []
    append = headings.append
    count = text.count
    line = first_line
    last = start
    m = first.match(text, start, end) if start == 0 or text[start - 1] == "\n" else None
    if m is not None:
        append(Heading(len(m.group(1)), heading_text(m.group(2)), line, start))
    for m in scan.finditer(text, start, end):
        pos = m.start(1)
        line += count("\n", last, pos)
        last = pos
        hashes, after = m.groups()
        # heading_text's result, its call saved for the many headings with no closing `#`:
        # with none, it is the text stripped (of " \t\r", then of every blank: at once)
        body = after.strip()
        if body[-1:] == "#":
            body = heading_text(after)
        append(Heading(len(hashes), body, line, pos))
    return headings


# A `###` line as _FLUSH_BODY reads it, its text's leading blanks left out of the group: a
# title is its text stripped, and the text most titles are then is already stripped (no
# second string a heading). Read one way only: the blanks are the group's only way to start.
_H3_BODY = r"(###)(?![^ \t\r\n])[ \t]*([^\n]*)"
_FLUSH_H3 = "\n" + _H3_BODY
_FLUSH_FIRST_H3 = _H3_BODY


def h3_parts(text: str, start: int, first_line: int, end: int,
             end_line: int) -> list[tuple[str, int, int, int, int]]:
    """The parts of a plain text's [start, end) (`is_plain`; `start` begins line `first_line`,
    `end` begins line `end_line`) under its `###` headings, when it holds no heading of a
    higher rank: each one's heading text (as `scan_headings` reads it), its line, the line
    after its last, where its heading line starts and where it stops: `h3_heads`, then
    `h3_lines` of the headings it found."""
    titles, at = h3_heads(text, start, end)
    return h3_zip(titles, h3_lines(text, start, first_line, at), at, end, end_line)


def h3_zip(titles: list[str], lines: list[int], at: list[int], end: int,
           end_line: int) -> list[tuple[str, int, int, int, int]]:
    """`h3_parts` from its columns: each part is (title, line, the next one's line, where it
    starts, where the next one starts), the last one ending at (`end_line`, `end`)."""
    if not at:
        return []
    return list(zip(titles, lines, [*lines[1:], end_line], at, [*at[1:], end], strict=True))


def h3_heads(text: str, start: int, end: int) -> tuple[list[str], list[int]]:
    """The `###` headings of a plain text's [start, end) (as `h3_parts` reads them): each
    one's heading text and where its line starts, without their lines. Their lines cost a
    count of every line end before them (`h3_lines`), a second pass over a 10,000-node tree
    that a verb reading only its IDs never needs.

    Read a column at a time (where each heading starts, its text), each column made by
    `map` over the one before it: no bytecode a heading (a loop over them cost 83 M
    instructions for a 10,000-node tree's, the columns 79 M, most of it the search and the
    line count either way)."""
    found = list(re.compile(_FLUSH_H3).finditer(text, start, end))
    many = len(found)
    at = list(map(re.Match.start, found, repeat(1, many)))
    raw = list(map(re.Match.group, found, repeat(2, many)))
    m = re.compile(_FLUSH_FIRST_H3).match(text, start, end) \
        if start == 0 or text[start - 1] == "\n" \
        else None
    if m is not None:  # a heading on the range's first line
        at.insert(0, start)
        raw.insert(0, m.group(2))
    # heading_text's result, its call saved where there is no closing `#` (as
    # `_flush_headings` reads it): the text stripped of every blank at once
    titles = list(map(str.strip, raw))
    # (a title ending in `#` puts `#` before a NUL of the joined titles: a text with none
    # has no such title, and one with one is read title by title, as before; most titles
    # hold no `#` at all, told by a one-character search, at memchr speed)
    joined = "\0".join(titles)
    if "#" in joined and "#\0" in joined + "\0":
        titles = [heading_text(after) if title[-1:] == "#" else title
                  for title, after in zip(titles, raw, strict=True)]
    return titles, at


def h3_lines(text: str, start: int, first_line: int, at: list[int]) -> list[int]:
    """The line of each heading `h3_heads` found at `at` in a text whose offset `start`
    begins line `first_line`: the line ends before each one, counted from the one before it
    (or from `start`)."""
    lines = list(accumulate(map(text.count, repeat("\n", len(at)), [start, *at], at),
                            initial=first_line))
    del lines[0]
    return lines


def last_heading(text: str, start: int, end: int, level: int) -> int:
    """Where the last heading of `level` in [start, end) starts, read from the end by the
    pattern the forward scan uses (-1: none, or a heading of a higher rank comes after it).
    Only for a plain text (`is_plain`: no fence or comment can hide a heading line), and
    `start` begins a line after a line end."""
    flush = re.compile(_FLUSH)
    pos = end
    while pos >= start:
        at = text.rfind("\n#", max(start - 1, 0), pos)
        if at < 0:
            return -1
        m = flush.match(text, at, end)
        if m is not None:
            if len(m.group(1)) == level:
                return at + 1
            if len(m.group(1)) < level:
                return -1
        pos = at
    return -1


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


# Git writes `<<<<<<< ours`, optionally `||||||| base`, `=======`, `>>>>>>> theirs`, each at
# the start of a line. Only a `<<<<<<<` closed by a later `>>>>>>>` counts, and never inside
# fenced code, where a document may show markers on purpose. (The patterns are compiled past
# the common case's test: a file without markers never needs them.)


def conflict_line(text: str) -> int | None:
    """The 1-based line of the first git conflict marker outside fenced code, or None."""
    # the common case, at C speed: a one-character search is a memchr, 40 times faster than
    # the search for seven (1.3 ms of every read of a 3 MB file)
    if "<" not in text or "<<<<<<<" not in text:
        return None
    marker = re.compile(r"^(<{7}|>{7})(?:[ \t][^\n]*)?\r?$", re.M)
    fence_line = re.compile(r" {0,3}(`{3,}|~{3,})")
    fence: tuple[str, int] | None = None
    opened: int | None = None
    for number, line in enumerate(text.split("\n"), 1):
        m = fence_line.match(line)
        if m is not None:
            run = m.group(1)
            if fence is None:
                fence = (run[0], len(run))
            elif run[0] == fence[0] and len(run) >= fence[1] and not line[m.end():].strip():
                fence = None
            continue
        if fence is not None or not marker.match(line):
            continue
        if line.startswith("<"):
            opened = opened or number
        elif opened is not None:
            return opened
    return None


def refuse_conflict(text: str, path: str) -> None:
    """Raise MERGE_CONFLICT when `text` still holds git's conflict markers."""
    line = conflict_line(text)
    if line is not None:
        import shlex

        from mdgrill.errors import InputError

        ids = _answered_in_conflict(text, line)
        what = (f"{' and '.join(ids)} {'was' if len(ids) == 1 else 'were'} answered "
                "differently on the two sides: keep one answer between the markers, then run "
                "`mdgrill merge` (it reseals the log)") if ids else \
            (f"run `mdgrill merge {shlex.quote(path)}`: it merges the two sides again and "
             "leaves between markers only what you must choose (keep what both sides meant, "
             "remove the <<<<<<< ======= >>>>>>> lines, then run `mdgrill merge` again: it "
             "reseals the log)")
        raise InputError("MERGE_CONFLICT", f"{path}:{line}:1: git conflict markers: {what}; "
                         "nothing reads or writes this file until then", path=path, line=line)


def _answered_in_conflict(text: str, line: int) -> list[str]:
    """The decision IDs whose answers stand between the first conflict's markers."""
    answer = re.compile(r"- (?:Decisions|Facts resolved|Out of scope): ([^\s]+) ->")
    lines = text.split("\n")[line - 1:]
    ids: list[str] = []
    for row in lines[1:]:
        if row.startswith(">>>>>>>"):
            break
        m = answer.match(row)
        if m is not None and m.group(1) not in ids:
            ids.append(m.group(1))
    return ids

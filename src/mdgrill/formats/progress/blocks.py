"""Log blocks and bullets: what a `###` heading of the log is, `- Key: value` lines, and the
log's normalized text and digest."""

from __future__ import annotations

import re
from hashlib import sha256

from mdgrill.formats.markdown import (
    heading_text,
)
from mdgrill.formats.progress.lines import (
    ARTIFACT_WORDS,
    BLOCK_HEADING,
    BULLET,
    LEGACY_HEADING,
    SUB_BULLET,
    TRANSITION_WORDS,
    Block,
    Entry,
)
from mdgrill.formats.schema import HEADING_WORD, PHASE_OF_WORD

_PHASES_SEEN: dict[str, str | None] = {}


def _phase_of(word: str) -> str | None:
    """The phase a heading's word names (`Requirements` -> requirements), memoized."""
    try:
        return _PHASES_SEEN[word]
    except KeyError:
        phase = _PHASES_SEEN[word] = PHASE_OF_WORD.get(word.lower())
        return phase


def classify_block(title: str, line: int, end: int) -> Block:
    m = BLOCK_HEADING.match(title)
    if m is not None:
        phase_word, kind, number, word = m.groups()
        phase = PHASE_OF_WORD.get(phase_word.lower())
        if number is not None and kind == "Grill":
            return Block("round", phase, int(number), title, line, end)
        table = TRANSITION_WORDS if kind == "Grill" else ARTIFACT_WORDS
        block_kind = table.get((word or "").lower())
        if block_kind is not None:
            return Block(block_kind, phase, None, title, line, end)
    legacy = LEGACY_HEADING.match(title)
    if legacy is not None:
        return Block("legacy", PHASE_OF_WORD.get(legacy.group("phase").lower()), None, title,
                     line, end)
    return Block("unknown", None, None, title, line, end)


def parse_bullets(lines: list[str], start: int, end: int,
                  base: int = 0) -> tuple[list[Entry], list[tuple[int, str]]]:
    """`- Key: value` bullets with nested bullets/continuations; other lines are stray.

    Line numbers in the result are `base` + the index in `lines`.
    """
    entries: list[Entry] = []
    stray: list[tuple[int, str]] = []
    current: Entry | None = None
    match = BULLET.match
    sub_match = SUB_BULLET.match
    for i in range(start, min(end, len(lines))):
        text = lines[i]  # content() inlined: this loop runs once per line of the log
        if text.endswith("\n"):
            text = text[:-2] if text.endswith("\r\n") else text[:-1]
        if not text or text.isspace():
            continue
        m = match(text)
        if m is not None:
            key, value = m.groups()
            current = Entry(key.strip(), value.strip() if value else "", base + i)
            entries.append(current)
            continue
        if current is not None and text[0] in " \t>":
            sub = sub_match(text)
            current.children.append(((sub.group(2).rstrip(" \t") if sub else text.strip()),
                                     base + i))
            continue
        current = None
        stray.append((base + i, text))
    return entries, stray


_H3 = re.compile(r" {0,3}###(?:[ \t\r\n]|\Z)")
# `###` heading lines, each found from the newline before it
_H3_FLUSH = re.compile(r"\n(###(?:[ \t\r][^\n]*)?)(?=\n|\Z)")
_H3_ANY = re.compile(r"\n( {0,3}###(?:[ \t\r][^\n]*)?)(?=\n|\Z)")
# The same lines with `### <Phase> Grill - Round <N>` split into (title, phase word, number)
_BLOCK_FLUSH = re.compile(r"\n(?:### (([A-Za-z]+) Grill - Round ([0-9]+))\r?(?=\n|\Z)"
                    r"|(###(?:[ \t\r][^\n]*)?)(?=\n|\Z))")
_H3_INDENTED = re.compile(r"\n {1,3}###(?:[ \t\r\n]|\Z)")


def _last_h3(text: str, start: int, end: int) -> int:
    """Offset of the last `### ` heading line in [start, end), or -1 (no fences in between)."""
    pos = end
    while pos > start:
        pos = text.rfind("###", start, pos)
        if pos < 0:
            return -1
        line_start = max(text.rfind("\n", start, pos) + 1, start)
        if _H3.match(text, line_start) is not None:
            return line_start
        pos = line_start
    return -1


def _heading_text(raw: str) -> str:
    """The text of a `###` heading line."""
    return heading_text(raw.strip(" \t\r")[3:])


def normalize_log(text: str) -> str:
    """The log as hashed: LF line ends, no leading or trailing blank lines (idempotent)."""
    return lf_line_ends(text).strip()


def lf_line_ends(text: str) -> str:
    """CRLF (and CR…CRLF) line ends as LF. A single `replace` would leave `\r\r\n` as `\r\n`,
    so normalizing twice would change the digest."""
    text = text.replace("\r\n", "\n")
    if "\r\n" in text:
        # each run of CRs before a LF dropped, line by line (`\r+\n` restarts at every CR)
        parts = text.split("\n")
        text = "\n".join([part.rstrip("\r") for part in parts[:-1]] + parts[-1:])
    return text


def log_digest(text: str) -> str:
    return sha256(normalize_log(text).encode("utf-8")).hexdigest()


ROUND_EDITED_HINT = ("a recorded block under Interview Responses was edited or removed (its "
                     "digest no longer matches `log:` in the front matter): undo the edit "
                     "(`mdgrill restore`, or git) and record a correction as a new round")


def block_heading(phase: str, what: str) -> str:
    return f"### {HEADING_WORD.get(phase, phase.title())} {what}"

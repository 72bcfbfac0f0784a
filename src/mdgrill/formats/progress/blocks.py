"""Log blocks and bullets: what a `###` heading of the log is, `- Key: value` lines, and the
log's normalized text and digest."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from hashlib import sha256
from operator import itemgetter

from mdgrill.formats.progress.lines import (
    ARTIFACT_WORDS,
    BLOCK_HEADING,
    BULLET_LINE,
    LEGACY_HEADING,
    SUB_BULLET,
    TRANSITION_WORDS,
    UNREAD_STRAY,
    Block,
    Bulleted,
    Entry,
    Node,
)
from mdgrill.formats.schema import HEADING_WORD, PHASE_OF_WORD

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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


_NO_GROUPS = ("", None, None, None)


def make_blocks(parts: Iterable[tuple[str, int, int, int, int]],
                read: Callable[[Any], None]) -> list[Block]:
    """`classify_block` of each `###` part of the log (title, line, end, offset, stop), each
    reading its bullets with `read` on first use. A round's Block is made field by field, as
    Block.__init__ makes one (a frame a block saved: the log of 10,000 rounds makes them all)."""
    blocks: list[Block] = []
    append = blocks.append
    match = BLOCK_HEADING.match
    make = object.__new__
    phases: dict[str, str | None] = {}  # a phase's word, as written, -> its phase
    last_word, last_phase = "", None  # the last round's phase word and its phase
    kind: str | None
    number: str | None
    for title, line, end, offset, stop in parts:
        # a round's title as mdgrill writes it, `<Phase> Grill - Round <N>`, is read from
        # its parts: where the phase is ASCII letters and N ASCII digits, BLOCK_HEADING
        # reads the same phase word and number (the phase holds no blank, so the first
        # ` Grill - Round ` follows it); any other title is read by the pattern
        phase_word, grill, number = title.partition(" Grill - Round ")
        if grill and phase_word.isalpha() and number.isdigit() and title.isascii():
            kind = "Grill"
        else:
            m = match(title)
            phase_word, kind, number, _ = m.groups() if m is not None else _NO_GROUPS
        if number is not None and kind == "Grill":
            if phase_word != last_word:  # a run of rounds of one phase: its word is known
                phase = phases.get(phase_word, "")
                if phase == "":
                    phase = phases[phase_word] = PHASE_OF_WORD.get(phase_word.lower())
                last_word, last_phase = phase_word, phase
            else:
                phase = last_phase
            block = make(Block)
            block._entries = None
            block._stray = UNREAD_STRAY
            block.kind = "round"
            block.phase = phase
            block.round = int(number)
            block.title = title
            block.line = line
            block.end = end
        else:
            block = classify_block(title, line, end)
        block.offset = offset
        block.stop = stop
        block._read = read
        append(block)
    return blocks


def line_tokens(text: str, start: int, end: int) -> list[tuple[str, str, str]]:
    """One BULLET_LINE token per line of text[start:end] (`start` begins a line); a line end
    is LF, or CRLF read as LF. A text ending in a line end has one more, empty, token."""
    if text.find("\r", start, end) >= 0:
        # one CR before each LF dropped, as the line's end: the lines stay where they were
        return BULLET_LINE.findall(text[start:end].replace("\r\n", "\n"))
    return BULLET_LINE.findall(text, start, end)


def read_bullets(text: str, start: int, end: int,
                 first_line: int) -> tuple[list[Entry], list[tuple[int, str]]]:
    """The `- Key: value` bullets of text[start:end] (which begins line `first_line`)."""
    return bullets(line_tokens(text, start, end), first_line)


def bullets(tokens: list[tuple[str, str, str]],
            first_line: int) -> tuple[list[Entry], list[tuple[int, str]]]:
    """The bullets of a part from its lines' tokens (the first is line `first_line`), with
    their nested bullets and continuation lines; every other non-blank line is stray. A
    blank line does not end the entry above it: a nested bullet after one still belongs."""
    span = _Span(first_line - 1, first_line + len(tokens))
    read_parts(tokens, first_line, (span,))
    assert span._entries is not None
    return span._entries, span._stray


class _Span(Bulleted):
    """The lines [line + 1, end) of a part, for `bullets`."""

    __slots__ = ("line", "end")

    def __init__(self, line: int, end: int) -> None:
        self._entries = None
        self._stray = []
        self._read = None
        self.line = line
        self.end = end


# A file's keys, lowered once each (a few distinct ones in 100,000 bullets); bounded, so a
# file of made-up keys cannot grow it (those are lowered one by one).
_LOWERED: dict[str, str] = {}


def _lower(key: str) -> str:
    low = key.lower()
    if len(_LOWERED) < 512:
        _LOWERED[key] = low
    return low


def read_parts(tokens: list[tuple[str, str, str]], base: int,
               parts: Iterable[Block | Node | _Span]) -> None:
    """Set the entries and stray lines of each part (in order of their lines, none inside
    another) from the tokens of the lines they lie in, the first of which is line `base`:
    a part's bullets are its lines [part.line + 1, part.end). A loop over each part's slice
    of the tokens, so a section of 10,000 parts costs no call per part."""
    sub_match = SUB_BULLET.match
    lowered = _LOWERED
    # Each bullet's Entry is made here field by field, as Entry.__init__ would make it: the
    # call of an `__init__` costs a frame per bullet, a quarter of making 100,000 of them
    make = object.__new__
    for part in parts:
        entries: list[Entry] = []
        stray: list[tuple[int, str]] = []
        part._entries, part._stray = entries, stray
        # a part's lines, taken as a slice: no line is asked where the next part begins
        first = part.line + 1
        at = first - base
        if at < 0:
            first, at = base, 0
        append = entries.append
        current: Entry | None = None
        for line, (key, value, other) in enumerate(tokens[at:part.end - base], first):
            if key:  # the pattern's key has no blank at either end
                current = make(Entry)
                current.key = key
                current.key_lower = lowered.get(key) or _lower(key)
                current.value = value.strip()
                current.line = line
                current.children = ()
                append(current)
            elif not other or other.isspace():
                continue
            elif current is not None and other[0] in " \t>":
                sub = sub_match(other)
                child = (sub.group(2).rstrip(" \t") if sub else other.strip(), line)
                children = current.children
                if isinstance(children, list):
                    children.append(child)
                else:
                    current.children = [child]
            else:
                current = None
                stray.append((line, other))


# The token of an empty line: no key, no value, no text
_EMPTY_LINE = ("", "", "")

# A bullet of a part as `read_parts` makes its Entry: (key lowered, value, line)
BulletRow = tuple[str, str, int]


def bullet_rows(tokens: list[tuple[str, str, str]], base: int,
                parts: Iterable[Block | Node]) -> list[tuple[list[BulletRow], bool]]:
    """What `read_parts` reads of each part's `- Key: value` bullets without making them:
    their (key lowered, value, line), the fields its entries get, in order, and whether
    every other line of the part is blank (then it has no stray line and no nested one).
    The same tokens, the same slices: a check that needs only these reads a 10,000-round
    log without 70,000 Entry objects."""
    lowered = _LOWERED
    out: list[tuple[list[BulletRow], bool]] = []
    append = out.append
    other = itemgetter(2)  # a line's text when it is not a bullet ("" for one), in C
    join = "".join
    for part in parts:
        first = part.line + 1
        at = first - base
        if at < 0:
            first, at = base, 0
        lines = tokens[at:part.end - base]
        rows = [(lowered.get(key) or _lower(key), value.strip(), line)
                for line, (key, value, _) in enumerate(lines, first) if key]
        # A line that is no row is one with no key: a part's lines are all rows but its
        # last, an empty one, as a round's are (its bullets, and the blank line before the
        # next heading), or all rows, told by their count. Else most parts' other lines are
        # still all empty, then no text is joined to be looked at.
        rest = len(lines) - len(rows)  # the lines that are no bullet
        append((rows, not rest or rest == 1 and lines[-1] == _EMPTY_LINE or
                not any(map(other, lines)) or join(map(other, lines)).isspace()))
    return out


def parse_bullets(lines: list[str], start: int, end: int,
                  base: int = 0) -> tuple[list[Entry], list[tuple[int, str]]]:
    """read_bullets over lines [start, end) of a file split by `split_lines`; line numbers
    in the result are `base` + the index in `lines`."""
    text = "".join(lines[start:end])
    return read_bullets(text, 0, len(text), base + start)



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

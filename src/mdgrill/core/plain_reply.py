"""A plain-text reply to a round cut into one part per question it names (issue 31, point 2).

Pure. A part starts at a clear marker that names a question of the round: its number as the
round first numbered it (`Q2:`, `2)`, `2.` at a line's start) or its decision ID (`D2:`).
Markers are found on one line as on several (`Q1: a, Q2: b, Q3: 1 year`, `1) b  2) a`,
`D1: a; D2: b`); anything else, commas included, stays inside the answer it is written in
("at checkout, but only for EU cards" is one answer). The round's numbering is fixed when
the round asks a decision (`round_numbering`), so a reply to the first `ask` still names the
right decisions after part of the round was answered.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from mdgrill.formats.progress.lines import split_ids

if TYPE_CHECKING:
    from mdgrill.formats.progress import Progress

# A marker candidate, checked by hand after the match (`_accepted`): a question number
# (`Q2`), a bare number (`2`) or a word that may be a decision ID, then its mark. Each
# candidate starts at a word's start (the lookbehind), so the scan stays linear.
_MARKER = re.compile(r"(?<![^\s,;(])(?:[Qq] ?(?P<q>[0-9]{1,3})|(?P<n>[0-9]{1,3})"
                     r"|(?P<id>[A-Za-z][\w.-]{0,63}))[ \t]*(?P<mark>[:.)]|[-–—](?=[ \t]))")
_SEPARATORS = " \t,;"


class Part(NamedTuple):
    """One piece of a reply: the decision it names (None: it names none of the round), the
    marker as written (`Q2`, `2`, `D2`; empty without one), its answer text and the piece as
    written (what is quoted back when it is not recorded)."""

    decision: str | None
    marker: str
    text: str
    written: str


def round_numbering(prog: Progress, pending: list[str]) -> list[str]:
    """The open round's decisions in the order the round asked them (its `Asked:` lines),
    then any pending one it does not list: question n is item n-1, for the whole round."""
    iv = prog.data.get("interview")
    order: list[str] = []
    # the latest block of the open round, even when another block (an amendment, a binding)
    # was written after it
    block = next((b for b in reversed(prog.blocks) if isinstance(iv, dict) and
                  b.kind == "round" and b.phase == iv.get("phase") and
                  b.round == iv.get("round")), None)
    if block is not None:
        for entry in block.get("Asked"):
            order.extend(split_ids(entry.value))
    order = list(dict.fromkeys(order))
    order += [d for d in pending if d not in order]
    return order


class _Marker(NamedTuple):
    start: int
    end: int
    decision: str
    kind: str  # q, n or id
    mark: str
    number: int
    written: str


def _accepted(line: str, m: re.Match[str], numbering: list[str], ids: dict[str, str],
              found: list[_Marker], used: set[int]) -> _Marker | None:
    """The marker a candidate is, or None: it must name a question of the round; at a line's
    start any mark serves; further on only a clear one (see the module's docstring)."""
    mark = m.group("mark")
    after = line[m.end():m.end() + 1]
    # what comes before, looked at back to the first non-blank only: slicing the whole line
    # for each candidate made a reply of many markers quadratic
    back = m.start()
    while back > 0 and line[back - 1] in " \t":
        back -= 1
    at_start = back == 0
    after_separator = line[back - 1:back] in (",", ";")
    first = found[0] if found else None
    if m.group("q") is not None:
        kind, number = "q", int(m.group("q"))
        decision = numbering[number - 1] if 1 <= number <= len(numbering) else None
        if not at_start and mark == ".":
            return None  # `… as in Q3.` ends a sentence
    elif m.group("n") is not None:
        kind, number = "n", int(m.group("n"))
        decision = numbering[number - 1] if 1 <= number <= len(numbering) else None
        if after.isdigit():
            return None  # `1.5 years`, `10:30`, `2-3 weeks`
        if not at_start and not after_separator and (
                first is None or first.kind != "n" or first.mark != mark or
                number in used):
            return None  # a number inside the words, unless it continues `1) … 2) …`
    else:
        kind, number = "id", 0
        decision = ids.get(m.group("id").casefold())
        if mark == "." or (not at_start and not after_separator and
                           (first is None or first.kind != "id")):
            return None
    if not decision:  # "": a number the caller's numbering leaves out
        return None
    return _Marker(m.start(), m.end(), decision, kind, mark, number,
                   line[m.start():m.end()].strip())


def _markers(line: str, numbering: list[str], ids: dict[str, str]) -> list[_Marker]:
    found: list[_Marker] = []
    used: set[int] = set()  # the bare numbers this line has taken as markers
    for m in _MARKER.finditer(line):
        marker = _accepted(line, m, numbering, ids, found, used)
        if marker is not None:
            found.append(marker)
            if marker.kind == "n":
                used.add(marker.number)
    return found


def _clean(text: str) -> str:
    return text.strip().strip(_SEPARATORS).strip()


def split_reply(text: str, numbering: list[str], pending: list[str]) -> list[Part]:
    """The reply's parts, in order. A reply with no marker answers the only pending decision
    whole, when exactly one is pending; otherwise each of its lines is a part naming none."""
    ids = {d.casefold(): d for d in numbering if d}
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    found = [(line, _markers(line, numbering, ids)) for line in lines]
    if len(pending) == 1 and not any(markers for _, markers in found):
        return [Part(pending[0], "", " ".join(lines), text.strip())]
    parts: list[Part] = []
    for line, markers in found:
        head = _clean(line[:markers[0].start] if markers else line)
        if head:
            parts.append(Part(None, "", head, head))
        for index, marker in enumerate(markers):
            end = markers[index + 1].start if index + 1 < len(markers) else len(line)
            answer = _clean(line[marker.end:end])
            written = _clean(line[marker.start:end])
            parts.append(Part(marker.decision, marker.written.rstrip(":.)-–— \t"), answer,
                              written))
    return parts


__all__ = ["Part", "round_numbering", "split_reply"]

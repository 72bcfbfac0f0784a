"""spec-kit's clarifications (pure): read `## Clarifications` from a `spec.md`, turn its
sessions into mdgrill rounds, and write answered decisions back in spec-kit's own shape.

spec-kit's clarify step keeps a dated log in the spec itself:

    ## Clarifications

    ### Session 2025-10-28

    - Q: <question> → A: <answer>

Reading keeps every line where it is: `spec.md` is never rewritten on import, and a line of
the section that is not in this shape (a table, a note, a heading of another kind) is
reported with its number, not guessed at. Writing back only inserts lines into that section
(or adds the section), so every byte outside it stays as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from mdgrill.formats.markdown import Heading, fence_closer, fence_opener, scan_headings
from mdgrill.formats.textfile import TextFile, content

SECTION = "clarifications"
SESSION = re.compile(r"Session\b[ \t]*(?P<label>.*)\Z", re.IGNORECASE)
DATE = re.compile(r"(?P<date>\d{4}-\d{2}-\d{2})\b")
# `- Q: … → A: …` (spec-kit), also with `->` and bold labels (`- **Q**: … → **A**: …`).
# A qualifier after the A is kept with the answer (`→ A (refined — …): …`).
# Read in pieces (see `qa`): one pattern with a lazy question before the arrow and a lazy
# answer before `[ \t]*\Z` backtracked past any time limit on a long line of blanks.
_QA_HEAD = re.compile(r"[-*+][ \t]+(?:\*\*)?Q(?:\*\*)?[ \t]*:(?:\*\*)?")
_ARROW = re.compile(r"→|->")
_QA_ANSWER = re.compile(r"(?:→|->)[ \t]*(?:\*\*)?A(?:\*\*)?(?:[ \t]*(?P<note>\([^)]*\)))?"
                        r"[ \t]*:(?:\*\*)?")
_BREAK = re.compile(r"(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})\Z")
ARROW = "→"


class QA(NamedTuple):
    """The parts of a `- Q: … → A: …` line."""

    q: str
    note: str | None
    a: str


def qa(line: str) -> QA | None:
    """A `- Q: … → A: …` line's question, answer qualifier and answer (blanks around each
    stripped); the question ends at the first arrow an `A:` follows."""
    head = _QA_HEAD.match(line)
    if head is None:
        return None
    for arrow in _ARROW.finditer(line, head.end()):
        m = _QA_ANSWER.match(line, arrow.start())
        if m is not None:
            return QA(line[head.end():arrow.start()].strip(" \t"), m.group("note"),
                      line[m.end():].strip(" \t"))
    return None


class Clarification:
    """One `- Q: … → A: …` bullet: its texts (continuation lines joined) and 0-based line."""

    __slots__ = ("question", "answer", "line", "last_line")

    def __init__(self, question: str, answer: str, line: int) -> None:
        self.question = question
        self.answer = answer
        self.line = line
        self.last_line = line  # the bullet's last line (a wrapped answer goes on)

    def to_json(self) -> dict[str, object]:
        return {"question": self.question, "answer": self.answer, "line": self.line + 1}


class Session:
    """A `### Session YYYY-MM-DD` part (or the bullets before the first one: no heading)."""

    __slots__ = ("label", "date", "heading_line", "items")

    def __init__(self, label: str | None, heading_line: int | None) -> None:
        self.label = label  # the heading's text after `Session` (`2026-04-19 (Part 2)`)
        m = DATE.match(label or "")
        self.date = m.group("date") if m else None
        self.heading_line = heading_line
        self.items: list[Clarification] = []

    def to_json(self) -> dict[str, object]:
        return {"session": self.label, "date": self.date,
                "line": None if self.heading_line is None else self.heading_line + 1,
                "clarifications": len(self.items)}


class Clarifications:
    """The `## Clarifications` section of a spec.md: where it is, its sessions, and the lines
    of it that are not spec-kit's shape (`stray`: 0-based line, text)."""

    __slots__ = ("heading_line", "end", "sessions", "stray")

    def __init__(self, heading_line: int, end: int) -> None:
        self.heading_line = heading_line
        self.end = end  # the line after the section (the next H1/H2, or the end of the file)
        self.sessions: list[Session] = []
        self.stray: list[tuple[int, str]] = []

    @property
    def items(self) -> list[Clarification]:
        return [c for s in self.sessions for c in s.items]


class Feature:
    """What a spec.md says of itself: its title, the user's input, and its clarifications."""

    __slots__ = ("title", "description", "clarifications", "first_h2")

    def __init__(self, title: str | None, description: str | None,
                 clarifications: Clarifications | None, first_h2: int | None) -> None:
        self.title = title
        self.description = description
        self.clarifications = clarifications
        self.first_h2 = first_h2


_TITLE = re.compile(r"(?:Feature Specification|Specification|Spec)\s*:\s*(?P<t>\S.*)\Z", re.I)
_INPUT = re.compile(r"\*\*Input\*\*\s*:\s*(?:User description\s*:\s*)?(?P<d>.+)\Z", re.I)


def read(tf: TextFile) -> Feature:
    """The feature a spec.md describes; headings inside fenced code are not headings."""
    lines = tf.lines
    headings = scan_headings(tf.text)
    title = description = None
    h1 = next((h for h in headings if h.level == 1), None)
    if h1 is not None:
        m = _TITLE.match(h1.text)
        title = m.group("t").strip() if m else h1.text
    h2s = [h for h in headings if h.level <= 2 and (h1 is None or h.line > h1.line)]
    first_h2 = next((h.line for h in h2s if h.level == 2), None)
    for i in range((h1.line + 1) if h1 else 0, first_h2 if first_h2 is not None else len(lines)):
        m = _INPUT.match(content(lines[i]).strip())
        if m is not None:
            description = m.group("d").strip().strip('"“”').strip()
            break
    found: Clarifications | None = None
    for index, h in enumerate(h2s):
        if h.level == 2 and h.text.strip().lower() == SECTION:
            end = next((x.line for x in h2s[index + 1:]), len(lines))
            found = _read_section(lines, h.line, end, [x for x in headings
                                                      if h.line < x.line < end])
            break
    return Feature(title, description, found, first_h2)


def _read_section(lines: list[str], heading_line: int, end: int,
                  inner: list[Heading]) -> Clarifications:
    section = Clarifications(heading_line, end)
    heading_at = {h.line: h for h in inner}
    session = Session(None, None)  # bullets above the first `### Session`
    current: Clarification | None = None
    fence: re.Pattern[str] | None = None
    for i in range(heading_line + 1, end):
        text = content(lines[i])
        stripped = text.strip()
        if fence is not None:  # fenced code inside the section is kept, never read
            section.stray.append((i, text))
            if fence.match(text):
                fence = None
            continue
        run = fence_opener(text)
        if run is not None:
            fence = fence_closer(run[0], len(run))
            section.stray.append((i, text))
            current = None
            continue
        h = heading_at.get(i)
        if h is not None:
            current = None
            m = SESSION.match(h.text.strip())
            if h.level == 3 and m is not None:
                if session.items or session.heading_line is not None:
                    section.sessions.append(session)
                session = Session(m.group("label").strip() or None, i)
            else:
                section.stray.append((i, text))
            continue
        if not stripped or _BREAK.match(stripped):
            continue  # a thematic break (`---`) between sessions says nothing
        pair = qa(stripped)
        if pair is not None and pair.q and pair.a:
            answer = f"{pair.note} {pair.a}" if pair.note else pair.a
            current = Clarification(pair.q, answer, i)
            session.items.append(current)
            continue
        if current is not None and text[:1] in " \t" and not stripped.startswith(("-", "*",
                                                                                 "+")):
            current.answer = f"{current.answer} {stripped}"  # a wrapped answer
            current.last_line = i
            continue
        current = None
        section.stray.append((i, text))
    if session.items or session.heading_line is not None:
        section.sessions.append(session)
    return section


def unusable(text: str) -> bool:
    """Text mdgrill cannot keep on one bullet line (control characters)."""
    from mdgrill.errors import InputError
    from mdgrill.formats.progress import single_line

    try:
        single_line(text, "text")
    except InputError:
        return True
    return False


# -- import: sessions as rounds -------------------------------------------------------------

PREFIX = "Q"


def question_ids(count: int, taken: Iterable[str] = ()) -> list[str]:
    """`Q1`, `Q2`, … in the order the questions stand in spec.md: the same file gives the
    same IDs every time, and an ID already used elsewhere is passed over."""
    used = set(taken)
    out: list[str] = []
    n = 0
    while len(out) < count:
        n += 1
        if f"{PREFIX}{n}" not in used:
            out.append(f"{PREFIX}{n}")
    return out


def body_lines(title: str, goal: str, heading_word: str, spec_md: str,
               sessions: list[tuple[Session, list[tuple[str, Clarification]]]]) -> list[str]:
    """The body of the imported `.progress.md`: the goal, one node per question (its title is
    the question), and one closed round per session (its answers as decisions)."""
    lines = [f"# {title}", "", "## Goal", "", goal, "", "## Design Tree", ""]
    for _, pairs in sessions:
        for node_id, item in pairs:
            lines += [*node_lines(node_id, item, spec_md), ""]
    lines += ["## Interview Responses", ""]
    for heading, block in round_blocks(sessions, heading_word, spec_md):
        lines += [heading, *block, ""]
    return lines


def node_lines(node_id: str, item: Clarification, spec_md: str) -> list[str]:
    """A question as a design-tree node: its words the title, its spec.md line the evidence."""
    return [f"### {node_id}: {item.question}", "- Section: Clarifications",
            "- Depends on: none", f"- Evidence: {spec_md} line {item.line + 1}"]


def round_blocks(sessions: list[tuple[Session, list[tuple[str, Clarification]]]],
                 heading_word: str, spec_md: str, first: int = 1,
                 open_before: Iterable[str] = ()) -> list[tuple[str, list[str]]]:
    """(heading, lines) of one closed round per session, numbered from `first`, and the
    Imported block that ends them. `open_before`: the frontier the log had already, still
    open after each of these rounds."""
    if not sessions:
        return []
    still_open = list(open_before)
    remaining = [node_id for _, pairs in sessions for node_id, _ in pairs]
    out: list[tuple[str, list[str]]] = []
    for number, (session, pairs) in enumerate(sessions, first):
        ids = [node_id for node_id, _ in pairs]
        remaining = remaining[len(ids):]
        where = "undated" if session.label is None else session.label
        lines = [f"- Asked: {', '.join(ids)}",
                 f"- Session: {where} (spec-kit clarify, {spec_md})"]
        lines += [f"- Decisions: {node_id} -> {item.answer}" for node_id, item in pairs]
        lines += ["- Facts resolved: none", "- Out of scope: none",
                  f"- Frontier after round: {', '.join(still_open + remaining) or 'none'}"]
        out.append((f"### {heading_word} Grill - Round {number}", lines))
    last = first + len(sessions) - 1
    out.append((f"### {heading_word} Grill - Imported",
                [f"- Source: {spec_md} (spec-kit clarify)", f"- Sessions: {len(sessions)}",
                 f"- Rounds: {first}-{last}" if last > first else f"- Rounds: {first}",
                 f"- Note: {IMPORTED_NOTE}"]))
    return out


IMPORTED_NOTE = ("these answers were given in spec-kit's clarify sessions, which mdgrill did not "
                 "see: they are recorded as history, and the phase's approval is still the "
                 "user's, through mdgrill's gate")


# -- export: answered decisions back into the section ----------------------------------------

def same(text: str) -> str:
    """Text compared as spec-kit's bullets and mdgrill's ledger both may space it."""
    return " ".join(text.split())


def bullet(question: str, answer: str) -> str:
    return f"- Q: {question} {ARROW} A: {answer}"


def fits(question: str, answer: str) -> bool:
    """Whether `- Q: question → A: answer` reads back as this very pair (a question holding
    `→ A:` itself would not, and would be written again by every export)."""
    m = qa(bullet(question, answer))
    return m is not None and not m.note and (same(m.q), same(m.a)) \
        == (same(question), same(answer))


def missing(feature: Feature, answered: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The (question, answer) pairs spec.md's clarifications do not hold yet, in order (of
    those spec-kit's line can hold: see `fits`)."""
    have = {(same(c.question), same(c.answer))
            for c in (feature.clarifications.items if feature.clarifications else [])}
    out: list[tuple[str, str]] = []
    for question, answer in answered:
        key = (same(question), same(answer))
        if key not in have and fits(question, answer):
            have.add(key)
            out.append((question, answer))
    return out


def newest_first(section: Clarifications) -> bool:
    """Whether the sessions run newest first (some teams keep them so): then a new session
    goes on top, else at the bottom."""
    dates = [s.date for s in section.sessions if s.date is not None]
    return len(dates) >= 2 and dates[0] > dates[-1]


def write_back(tf: TextFile, feature: Feature, pairs: list[tuple[str, str]],
               date: str) -> str:
    """`insert_answers`, refused (MALFORMED_FILE) when spec-kit would not read the result
    back with every pair in it: a file that ends inside an unclosed code fence, say, turns
    the new section into code."""
    out = insert_answers(tf, feature, pairs, date)
    found = read(TextFile(out, tf.bom, tf.newline)).clarifications
    have = {(same(c.question), same(c.answer)) for c in (found.items if found else [])}
    lost = [q for q, a in pairs if (same(q), same(a)) not in have]
    if lost:
        from mdgrill.errors import InputError

        raise InputError("MALFORMED_FILE", "the answers would not read back from spec.md as "
                         "clarifications (is a code fence left open?): fix its structure, then "
                         "export again; nothing was written")
    return out


def insert_answers(tf: TextFile, feature: Feature, pairs: list[tuple[str, str]],
                   date: str) -> str:
    """spec.md's text with `pairs` added under `### Session <date>` in `## Clarifications`.

    Into that day's session when it exists (after its last bullet), else a new session;
    the section itself is created before the first H2 when the file has none. Only lines are
    inserted, so the rest of the file stays byte for byte.
    """
    if not pairs:
        return tf.text
    lines = tf.lines
    bullets = [bullet(q, a) for q, a in pairs]
    section = feature.clarifications
    if section is None:
        at = feature.first_h2 if feature.first_h2 is not None else len(lines)
        block = ["## Clarifications", "", f"### Session {date}", "", *bullets]
        return _insert(tf, at, block + ([""] if at < len(lines) else []), blank_before=True)
    gap = [""] if _blank_after_heading(section, lines) else []
    today = next((s for s in section.sessions if s.label == date), None)
    if today is not None and today.items:
        return _insert(tf, today.items[-1].last_line + 1, bullets)
    if today is not None and today.heading_line is not None:
        return _insert(tf, today.heading_line + 1, [*gap, *bullets])
    block = [f"### Session {date}", *gap, *bullets]
    dated = [s.heading_line for s in section.sessions if s.heading_line is not None]
    if dated and newest_first(section):
        return _insert(tf, dated[0], [*block, ""])
    at = section.end
    while at > section.heading_line + 1 and not content(lines[at - 1]).strip():
        at -= 1  # after the section's last line, before the blank lines that close it
    follows = at == section.end and at < len(lines)  # a heading right under the last line
    return _insert(tf, at, ["", *block, *([""] if follows else [])])


def _blank_after_heading(section: Clarifications, lines: list[str]) -> bool:
    """Whether this file's sessions leave a blank line under their heading (spec-kit does)."""
    for s in section.sessions:
        if s.heading_line is not None and s.heading_line + 1 < len(lines):
            return not content(lines[s.heading_line + 1]).strip()
    return True


def _insert(tf: TextFile, at: int, new: list[str], blank_before: bool = False) -> str:
    """The text with `new` lines inserted before line `at` (0-based), in the file's newline
    style; a file whose last line has no line end gets one first."""
    nl = tf.newline
    lines = tf.lines
    offset = sum(len(line) for line in lines[:at])
    prefix = ""
    if at >= len(lines) and lines and not lines[-1].endswith("\n"):
        prefix = nl  # the file ended mid-line
    if blank_before and at > 0 and at <= len(lines) and content(lines[at - 1]).strip():
        new = ["", *new]
    text = prefix + nl.join(new) + nl
    return tf.text[:offset] + text + tf.text[offset:]

"""`.progress.md`: read its layout (front matter, sections, design tree, log blocks) and write it.

Reading is in two depths. `read_progress` scans headings only (cheap: what every command
needs); nodes and block entries are parsed when asked for. Writing appends blocks and lines
at the end of `## Interview Responses` and splices front matter values, so every other byte
of the file stays as it was.
"""

from __future__ import annotations

import re
from hashlib import sha256

from . import frontmatter_io
from .errors import InputError
from .markdown import Heading, Section, scan_headings, sections
from .record import BLOCK_LISTS, HEADING_WORD, PHASE_OF_WORD, TOP_KEYS
from .textfile import TextFile, apply_splices, content

GOAL = "goal"
TREE = "design tree"
LOG = "interview responses"
KNOWN_SECTIONS = (GOAL, TREE, LOG)

NODE_HEADING = re.compile(r"([A-Za-z][A-Za-z0-9._-]*)\s*:\s*(.*)\Z")
BLOCK_HEADING = re.compile(
    r"(?P<phase>[A-Za-z]+) (?P<kind>Grill|Artifact) - "
    r"(?:Round (?P<round>[0-9]+)|(?P<word>[A-Za-z][A-Za-z ]*[A-Za-z]))\Z")
LEGACY_HEADING = re.compile(r"(?P<phase>[A-Za-z]+) Interview(?: \(from [^)]*\))?\Z")
BULLET = re.compile(r"[-*+][ \t]+(?:\*\*)?([A-Za-z][A-Za-z /_-]*?)(?:\*\*)?[ \t]*:(?:\*\*)?(?:[ \t]+(.*?))?[ \t]*\Z")
SUB_BULLET = re.compile(r"([ \t]+)[-*+][ \t]+(.*?)[ \t]*\Z")

TRANSITION_WORDS = {
    "awaiting confirmation": "awaiting", "confirmed": "confirmed", "revised": "revised",
    "skipped": "skipped", "bypassed": "bypassed", "reset": "reset",
}
ARTIFACT_WORDS = {
    "awaiting approval": "artifact_awaiting", "approved": "artifact_approved",
    "revision requested": "artifact_revision",
}


class Entry:
    """One `- Key: value` bullet of a node or a block, with its 0-based line."""

    __slots__ = ("key", "value", "line", "children")

    def __init__(self, key: str, value: str, line: int) -> None:
        self.key = key
        self.value = value
        self.line = line
        self.children: list[tuple[str, int]] = []  # nested bullets / continuation lines

    def __repr__(self) -> str:
        return f"Entry({self.key!r}, {self.value!r}, line={self.line})"


class Block:
    """A `### <Phase> Grill - ...` block of the log (or a legacy/unknown one)."""

    __slots__ = ("kind", "phase", "round", "title", "line", "end", "entries", "stray")

    def __init__(self, kind: str, phase: str | None, round_number: int | None, title: str,
                 line: int, end: int) -> None:
        self.kind = kind  # round, awaiting, confirmed, ..., artifact_*, legacy, unknown
        self.phase = phase
        self.round = round_number
        self.title = title
        self.line = line  # heading line, 0-based
        self.end = end  # first line after the block
        self.entries: list[Entry] = []
        self.stray: list[tuple[int, str]] = []  # lines that are not `- Key: value`

    def get(self, key: str) -> list[Entry]:
        k = key.lower()
        return [e for e in self.entries if e.key.lower() == k]

    def first(self, key: str) -> str | None:
        found = self.get(key)
        return found[0].value if found else None

    def __repr__(self) -> str:
        return f"Block({self.kind}, {self.phase}, {self.round}, line={self.line})"


class Option:
    __slots__ = ("text", "recommended", "line")

    def __init__(self, text: str, recommended: bool, line: int) -> None:
        self.text = text
        self.recommended = recommended
        self.line = line


class Node:
    """A design tree node `### <ID>: <title>` and its bullets."""

    __slots__ = ("id", "title", "line", "end", "entries", "options", "stray")

    def __init__(self, node_id: str, title: str, line: int, end: int) -> None:
        self.id = node_id
        self.title = title
        self.line = line
        self.end = end
        self.entries: list[Entry] = []
        self.options: list[Option] = []
        self.stray: list[tuple[int, str]] = []

    def first(self, key: str) -> str | None:
        k = key.lower()
        for e in self.entries:
            if e.key.lower() == k:
                return e.value
        return None

    @property
    def section(self) -> str | None:
        return self.first("Section")

    @property
    def depends_on(self) -> list[str]:
        return split_ids(self.first("Depends on"))

    @property
    def spawned_by(self) -> str | None:
        ids = split_ids(self.first("Spawned by"))
        return ids[0] if ids else None

    @property
    def investigating(self) -> str | None:
        return self.first("Investigating")

    def __repr__(self) -> str:
        return f"Node({self.id!r}, {self.title!r}, line={self.line})"


def split_ids(value: str | None) -> list[str]:
    """`D1, D2` -> [D1, D2]; `none`/empty -> []."""
    if value is None:
        return []
    text = value.strip()
    if not text or text.lower() in ("none", "-", "n/a"):
        return []
    return [part.strip() for part in re.split(r"[,;]", text) if part.strip()]


class Progress:
    """A parsed `.progress.md`: front matter data, headings, sections, blocks, nodes."""

    def __init__(self, tf: TextFile, path: str) -> None:
        self.tf = tf
        self.path = path
        self.fm = frontmatter_io.split(tf, path)
        if self.fm is not None:
            frontmatter_io.load(tf, self.fm, path)
        self.data: dict[str, object] = self.fm.data if self.fm is not None else {}
        body_offset = self.fm.end_offset if self.fm is not None else 0
        body_line = self.fm.body_start if self.fm is not None else 0
        self.body_line = body_line
        self.headings: list[Heading] = scan_headings(tf.text, body_offset, body_line)
        self.total_lines = body_line + tf.text.count("\n", body_offset) + 1
        self.title: Heading | None = next((h for h in self.headings if h.level == 1), None)
        self.sections: dict[str, Section] = {}
        self.duplicate_sections: list[Section] = []
        for sec in sections(self.headings, 2, self.total_lines, (body_line, self.total_lines)):
            key = sec.title.strip().lower()
            if key in KNOWN_SECTIONS:
                if key in self.sections:
                    self.duplicate_sections.append(sec)
                else:
                    self.sections[key] = sec
        self._blocks: list[Block] | None = None
        self._nodes: list[Node] | None = None
        self._lines: list[str] | None = None

    # -- lines ------------------------------------------------------------------------

    def line_offset(self, heading_index: int) -> int:
        return self.headings[heading_index].offset

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.tf.lines
        return self._lines

    # -- the log ------------------------------------------------------------------------

    def log_span(self) -> tuple[int, int] | None:
        """Character offsets [start, end) of the `## Interview Responses` content."""
        sec = self.sections.get(LOG)
        if sec is None:
            return None
        return self._section_offsets(sec)

    def _section_offsets(self, sec: Section) -> tuple[int, int]:
        text = self.tf.text
        head = next(h for h in self.headings if h.line == sec.heading_line)
        start = text.find("\n", head.offset)
        start = len(text) if start < 0 else start + 1
        end = len(text)
        for h in self.headings:
            if h.line >= sec.end:
                end = h.offset
                break
        return start, end

    def log_text(self) -> str:
        span = self.log_span()
        if span is None:
            return ""
        return normalize_log(self.tf.text[span[0]:span[1]])

    @property
    def blocks(self) -> list[Block]:
        if self._blocks is None:
            self._blocks = self._read_blocks(with_entries=True)
        return self._blocks

    def block_headings(self) -> list[Block]:
        """The log's blocks without their entries (cheap)."""
        if self._blocks is not None:
            return self._blocks
        return self._read_blocks(with_entries=False)

    def last_block(self) -> Block | None:
        """The last block of the log, with its entries."""
        blocks = self.block_headings()
        if not blocks:
            return None
        last = blocks[-1]
        if not last.entries and not last.stray:
            self._fill_entries(last)
        return last

    def _read_blocks(self, with_entries: bool) -> list[Block]:
        sec = self.sections.get(LOG)
        if sec is None:
            return []
        subs = sections(self.headings, 3, self.total_lines, (sec.start, sec.end))
        blocks = [classify_block(s.title, s.heading_line, s.end) for s in subs]
        if with_entries:
            for block in blocks:
                self._fill_entries(block)
        return blocks

    def _fill_entries(self, block: Block) -> None:
        entries, stray = parse_bullets(self.lines, block.line + 1, block.end)
        block.entries = entries
        block.stray = stray

    # -- the design tree -------------------------------------------------------------------

    @property
    def nodes(self) -> list[Node]:
        if self._nodes is None:
            self._nodes = self._read_nodes()
        return self._nodes

    def node_headings_without_id(self) -> list[Section]:
        sec = self.sections.get(TREE)
        if sec is None:
            return []
        subs = sections(self.headings, 3, self.total_lines, (sec.start, sec.end))
        return [s for s in subs if NODE_HEADING.match(s.title) is None]

    def _read_nodes(self) -> list[Node]:
        sec = self.sections.get(TREE)
        if sec is None:
            return []
        nodes = []
        for sub in sections(self.headings, 3, self.total_lines, (sec.start, sec.end)):
            m = NODE_HEADING.match(sub.title)
            if m is None:
                continue
            node = Node(m.group(1), m.group(2).strip(), sub.heading_line, sub.end)
            node.entries, node.stray = parse_bullets(self.lines, sub.heading_line + 1, sub.end)
            for entry in node.entries:
                if entry.key.lower() == "options":
                    for text, line in entry.children:
                        rec = "(recommended)" in text.lower()
                        node.options.append(Option(text, rec, line))
            nodes.append(node)
        return nodes

    def node(self, node_id: str) -> Node | None:
        return next((n for n in self.nodes if n.id == node_id), None)


def classify_block(title: str, line: int, end: int) -> Block:
    m = BLOCK_HEADING.match(title)
    if m is not None:
        phase = PHASE_OF_WORD.get(m.group("phase").lower())
        if m.group("round") is not None and m.group("kind") == "Grill":
            return Block("round", phase, int(m.group("round")), title, line, end)
        word = (m.group("word") or "").lower()
        table = TRANSITION_WORDS if m.group("kind") == "Grill" else ARTIFACT_WORDS
        kind = table.get(word)
        if kind is not None:
            return Block(kind, phase, None, title, line, end)
    legacy = LEGACY_HEADING.match(title)
    if legacy is not None:
        return Block("legacy", PHASE_OF_WORD.get(legacy.group("phase").lower()), None, title,
                     line, end)
    return Block("unknown", None, None, title, line, end)


def parse_bullets(lines: list[str], start: int, end: int) -> tuple[list[Entry], list[tuple[int, str]]]:
    """`- Key: value` bullets with nested bullets/continuations; other lines are stray."""
    entries: list[Entry] = []
    stray: list[tuple[int, str]] = []
    current: Entry | None = None
    for i in range(start, min(end, len(lines))):
        text = content(lines[i])
        if not text.strip():
            continue
        m = BULLET.match(text)
        if m is not None:
            current = Entry(m.group(1).strip(), (m.group(2) or "").strip(), i)
            entries.append(current)
            continue
        if current is not None and text[0] in " \t>":
            sub = SUB_BULLET.match(text)
            current.children.append(((sub.group(2) if sub else text.strip()), i))
            continue
        current = None
        stray.append((i, text))
    return entries, stray


def normalize_log(text: str) -> str:
    """The log as hashed: LF line ends, no leading or trailing blank lines."""
    return text.replace("\r\n", "\n").strip()


def log_digest(text: str) -> str:
    return sha256(normalize_log(text).encode("utf-8")).hexdigest()


def block_heading(phase: str, what: str) -> str:
    return f"### {HEADING_WORD.get(phase, phase.title())} {what}"


# ---------------------------------------------------------------------------------------
# Writing


class Change:
    """What a command does to `.progress.md`: front matter updates and lines appended."""

    def __init__(self) -> None:
        self.updates: dict[str, object] = {}
        self.append_lines: list[str] = []  # to the last block of the log
        self.new_blocks: list[tuple[str, list[str]]] = []  # (heading, lines) after it
        self.insert_nodes: list[list[str]] = []  # design tree node blocks

    @property
    def touches_log(self) -> bool:
        return bool(self.append_lines or self.new_blocks)

    def block(self, heading: str, lines: list[str]) -> None:
        self.new_blocks.append((heading, lines))


def apply_change(prog: Progress, change: Change) -> str:
    """The file's new text: every byte outside the change stays as it was."""
    text = prog.tf.text
    nl = prog.tf.newline
    splices: list[tuple[int, int, str]] = []
    updates = dict(change.updates)

    if change.insert_nodes:
        splices.append(_tree_insertion(prog, change.insert_nodes, nl))

    if change.touches_log:
        span = prog.log_span()
        added: list[str] = list(change.append_lines)
        for heading, lines in change.new_blocks:
            added.extend(["", heading, *lines])
        if span is None:
            old_log = ""
            at = len(text)
            prefix = "" if not text or text.endswith("\n") else nl
            if text and not text.endswith(("\n\n", "\r\n\r\n")):
                prefix += nl
            new_text = prefix + "## Interview Responses" + nl + nl.join(added) + nl
            splices.append((at, at, new_text))
            new_log = "\n".join(_drop_leading_blank(added))
        else:
            start, end = span
            old_log = text[start:end]
            at = _end_of_content(text, start, end)
            lead = "" if at == 0 or text[at - 1] == "\n" else nl
            if at == start and start > 0 and text[start - 1] != "\n":
                lead = nl  # the section heading is the file's last line, without a line end
            insertion = lead + nl.join(added) + nl
            splices.append((at, at, insertion))
            new_log = normalize_log(old_log) + ("\n" if normalize_log(old_log) else "") + \
                "\n".join(added)
        blocks = len(prog.block_headings()) + len(change.new_blocks)
        updates["log"] = {"blocks": blocks, "sha256": log_digest(new_log)}

    head_text = ""
    head_end = 0
    if updates:
        edits = frontmatter_io.splice(prog.tf, prog.fm, updates, TOP_KEYS, BLOCK_LISTS)
        if prog.fm is not None:
            head_text = frontmatter_io.apply_head_edits(prog.fm, edits, nl)
            head_end = prog.fm.end_offset
        else:
            head_text = nl.join(edits[0].new_lines) + nl
    elif prog.fm is not None:
        head_end = 0
    if updates:
        splices.append((0, head_end, head_text))
    return apply_splices(text, splices)


def _drop_leading_blank(lines: list[str]) -> list[str]:
    i = 0
    while i < len(lines) and not lines[i]:
        i += 1
    return lines[i:]


def _end_of_content(text: str, start: int, end: int) -> int:
    """Offset just after the last non-blank line in [start, end) (or start if none)."""
    i = end
    while i > start and text[i - 1] in " \t\r\n":
        i -= 1
    if i == start:
        return start
    eol = text.find("\n", i)
    return end if eol < 0 or eol >= end else eol + 1


def _tree_insertion(prog: Progress, node_blocks: list[list[str]], nl: str) -> tuple[int, int, str]:
    text = prog.tf.text
    lines: list[str] = []
    for block in node_blocks:
        lines.extend(["", *block])
    sec = prog.sections.get(TREE)
    if sec is not None:
        start, end = prog._section_offsets(sec)
        at = _end_of_content(text, start, end)
        lead = "" if at == 0 or text[at - 1] == "\n" else nl
        return at, at, lead + nl.join(lines) + nl
    # no tree yet: put it before the log, or at the end of the file
    log = prog.sections.get(LOG)
    section_lines = ["## Design Tree", *lines]
    if log is not None:
        head = next(h for h in prog.headings if h.line == log.heading_line)
        return head.offset, head.offset, nl.join(section_lines) + nl + nl
    prefix = "" if not text or text.endswith("\n") else nl
    return len(text), len(text), prefix + nl + nl.join(section_lines) + nl


def read_progress(data: bytes, path: str) -> Progress:
    """Decode and parse; malformed input raises InputError (never a traceback)."""
    from .textfile import decode

    return Progress(decode(data, path), path)


def single_line(text: str, what: str) -> str:
    """User or agent text made safe for one Markdown bullet line (no line breaks, no controls)."""
    if not isinstance(text, str):
        raise InputError("INVALID_INPUT", f"{what} must be text")
    cleaned = " ".join(text.replace("\r", "\n").split())
    if not cleaned:
        raise InputError("INVALID_INPUT", f"{what} is empty: give it some text")
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in cleaned):
        raise InputError("INVALID_INPUT", f"{what} holds control characters: remove them")
    return cleaned

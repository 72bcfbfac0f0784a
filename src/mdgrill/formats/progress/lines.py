"""The pieces of a `.progress.md`: its known sections, `- Key: value` entries, log blocks and
design-tree nodes."""

from __future__ import annotations

import re
import sys
from itertools import repeat as _repeat
from operator import itemgetter

from mdgrill.formats.schema import ID_PATTERN

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

GOAL = "goal"
TREE = "design tree"
LOG = "interview responses"
KNOWN_SECTIONS = (GOAL, TREE, LOG)
# smart-ralph names the goal section `## Original Goal`; `import-ralph` reads the goal there
SECTION_ALIASES = {"original goal": GOAL}


def section_key(title: str) -> str:
    key = title.strip().lower()
    return SECTION_ALIASES.get(key, key)

NODE_HEADING = re.compile(rf"({ID_PATTERN})\s*:\s*(.*)\Z")
_FIRST = itemgetter(0)  # a partition's head; a string's first character
_SECOND = itemgetter(1)  # a partition's separator


def node_heading(title: str) -> tuple[str, str] | None:
    """(ID, title words) of a `###` title that names a node, as NODE_HEADING reads it (its
    ID, its words stripped); None for one that does not."""
    m = NODE_HEADING.match(title)
    return None if m is None else (m.group(1), m.group(2).strip())


def node_words(title: str) -> str:
    """A node heading's words (`node_heading(title)[1]`, for a title it reads an ID from):
    what follows its ID's `:`, stripped. Neither the ID nor the blanks after it hold a `:`,
    so NODE_HEADING's `:` is the first one, and its `\\s*(.*)`, stripped, is the rest."""
    return title.partition(":")[2].strip()


def node_id_column(titles: Sequence[str]) -> tuple[list[str | None], bool]:
    """`node_heading(title)[0]` of each title (None: no node), read by str methods where the
    titles allow, at C speed (`map`), not by a match a title (a fifth of reading a
    10,000-node tree's IDs); and whether every title names a node (no None), known without
    looking for one in the common case.

    A title NODE_HEADING reads is `<ID><blanks>:<anything but a line end>`: neither the ID
    nor `\\s` holds a `:`, so its `:` is the title's first one, and its ID is what comes
    before it, the blanks stripped (`\\s` is what `str.rstrip` strips), when that is an ID.
    Here every title is tested at once for the common case, IDs of ASCII letters and digits
    starting with a letter and no line end in any title; any other title (an ID with `._-`,
    a heading that is no node) is read by the pattern. `tests/test_node_index.py` holds this
    to `node_heading` over generated titles."""
    heads = list(map(str.partition, titles, _repeat(":", len(titles))))
    ids = list(map(str.rstrip, map(_FIRST, heads)))
    joined = "".join(ids)
    if all(map(_SECOND, heads)) and all(ids) and joined.isascii() and joined.isalnum() \
            and all(map(str.isalpha, map(_FIRST, ids))) and "\n" not in "\0".join(titles):
        return ids, True  # type: ignore[return-value]
    column = [node_id if sep and node_id and node_id.isascii() and node_id.isalnum() and
              node_id[0].isalpha() and "\n" not in title else _pattern_id(title)
              for title, (_, sep, _), node_id in zip(titles, heads, ids, strict=True)]
    return column, None not in column


def _pattern_id(title: str) -> str | None:
    found = node_heading(title)
    return None if found is None else found[0]


BLOCK_HEADING = re.compile(
    r"(?P<phase>[A-Za-z]+) (?P<kind>Grill|Artifact) - "
    r"(?:Round (?P<round>[0-9]+)|(?P<word>[A-Za-z][A-Za-z ]*[A-Za-z]))\Z")
LEGACY_HEADING = re.compile(r"(?P<phase>[A-Za-z]+) Interview(?: \(from [^)]*\))?\Z")
# Greedy groups, trimmed by the caller: a lazy `(.*?)[ \t]*\Z` backtracks once per character
# (the key can only differ by trailing spaces, since neither `:` nor `*` may be in it).
# A key is a letter, then letters, digits, `/_-` and spaces, not ending in a space: read as
# one class (the engine's single-character loop, not its general repeat of `(?: +word)*`,
# which cost a third of the tokenizing pass), its trailing spaces given back one by one to
# the lookbehind. The blanks before the colon are read one way only, so a bullet of 100 KB
# of spaces and no colon stays linear (each position inside the spaces fails the lookbehind
# at once; a class holding the blank, then `[ \t]*`, with no lookbehind, was quadratic).
# (No possessive quantifiers: Python 3.10, which mdgrill supports, has none.)
# The optional `**` is written `(?:\*\*|)`, not `(?:\*\*)?`: the same choices tried in the
# same order, as a branch instead of the engine's general repeat.
# `tests/test_grammar.py` holds that these read every line as the plainer spelling
# (`(?:\*\*)?`, `(?: +[A-Za-z0-9/_-]+)*`, an optional value) reads it.
_KEY = (r"[-*+][ \t]+(?:\*\*|)([A-Za-z][A-Za-z0-9/_ -]*(?<! ))(?:\*\*|)"
        r"[ \t]*:(?:\*\*|)")
BULLET = re.compile(_KEY + r"(?:[ \t]+(.*))?\Z")
SUB_BULLET = re.compile(r"([ \t]+)[-*+][ \t]+(.*)\Z")
# The grammar of a line under a `###` heading, as one pattern so a part is read in one
# C-speed pass (`blocks.read_bullets`): (key, value) of a `- Key: value` bullet, as BULLET
# reads one, else ("", "", the line). The other lines are told apart by their first
# character (SUB_BULLET for a nested bullet).
# Each match ends after its line's LF (or at the end), so the next begins a line: no `^`
# with re.M, which the engine tries at every position.
BULLET_LINE_310 = rf"(?:{_KEY}(?:[ \t]+([^\n]*)|(?![^\n]))|([^\n]*))\n?"
# The same, where Python (3.11+) has possessive repeats, for the repeats no later piece can
# take a character back from (the blanks before a letter, a `:` or the value, the value, the
# line's text and its LF): the engine then runs each as a plain loop, not as a point to come
# back to, a tenth less work a line. The key keeps its lookbehind. `tests/test_tokens_
# grammar.py` holds both spellings to the plain one on every line.
BULLET_LINE_311 = (r"(?:[-*+][ \t]++(?:\*\*|)([A-Za-z][A-Za-z0-9/_ -]*(?<! ))(?:\*\*|)"
                   r"[ \t]*+:(?:\*\*|)(?:[ \t]++([^\n]*+)|(?![^\n]))|([^\n]*+))\n?+")
BULLET_LINE = re.compile(BULLET_LINE_311 if sys.version_info >= (3, 11) else BULLET_LINE_310)

TRANSITION_WORDS = {
    "awaiting confirmation": "awaiting", "confirmed": "confirmed", "revised": "revised",
    "skipped": "skipped", "bypassed": "bypassed", "reset": "reset",
    "approval resolved": "resolved", "cancelled": "cancelled", "mode": "mode",
    "reopened": "reopened", "amended": "amended",
    # what another tool recorded ends here: imported history, which mdgrill's gate never saw
    "imported": "imported",
    # a decision bound to code or docs, and its owner's word after they changed (bindings.md)
    "bound": "bound", "reaffirmed": "reaffirmed",
}
ARTIFACT_WORDS = {
    "awaiting approval": "artifact_awaiting", "approved": "artifact_approved",
    "revision requested": "artifact_revision",
}


class Entry:
    """One `- Key: value` bullet of a node or a block, with its 0-based line. (`blocks.
    read_parts` sets these same fields without calling `__init__`: a field added here is
    added there.)"""

    __slots__ = ("key", "key_lower", "value", "line", "children")

    def __init__(self, key: str, value: str, line: int, key_lower: str | None = None) -> None:
        """`key_lower`: `key.lower()` when the caller has it (a file's few distinct keys,
        lowered once each instead of once a bullet)."""
        self.key = key
        # keys are read case-insensitively: lowered once
        self.key_lower = key.lower() if key_lower is None else key_lower
        self.value = value
        self.line = line
        # nested bullets / continuation lines: a list once there is one (most entries have
        # none, and 100,000 empty lists cost a tenth of reading a 10,000-round log)
        self.children: Sequence[tuple[str, int]] = ()

    def __repr__(self) -> str:
        return f"Entry({self.key!r}, {self.value!r}, line={self.line})"


# The stray lines of a part whose bullets are not read yet, shared by the parts the readers
# make field by field (a 10,000-round log's blocks, a 10,000-node tree's nodes): its reader
# sets the part's own list with its entries, the one way `stray` is read, so this one is
# never read as a part's lines nor added to (a tuple: an append would fail, not be shared).
# An empty list a part was 0.7 MB of page faults for `validate` of 10,000 rounds.
UNREAD_STRAY: list[tuple[int, str]] = ()  # type: ignore[assignment]


class Bulleted:
    """A part under a `###` heading whose `- Key: value` bullets are read on first use of
    `entries` or `stray`, by the reader that made it: the one read path of a log or a tree
    costs a heading per part until a check wants more."""

    __slots__ = ("_entries", "_stray", "_read")

    def __init__(self) -> None:
        self._entries: list[Entry] | None = None
        self._stray: list[tuple[int, str]] = []
        self._read: Callable[[Any], None] | None = None  # sets entries and stray

    @property
    def entries(self) -> list[Entry]:
        if self._entries is None:
            self._entries = []
            if self._read is not None:
                self._read(self)
        return self._entries

    @entries.setter
    def entries(self, value: list[Entry]) -> None:
        self._entries = value
        self._forget()

    @property
    def stray(self) -> list[tuple[int, str]]:
        """Lines that are not `- Key: value` bullets."""
        self.entries  # noqa: B018 - reads the bullets and the stray lines together
        return self._stray

    @stray.setter
    def stray(self, value: list[tuple[int, str]]) -> None:
        self._stray = value

    def _forget(self) -> None:
        """Drop what was worked out from the entries (they were just set)."""


class Block(Bulleted):
    """A `### <Phase> Grill - ...` block of the log (or a legacy/unknown one). (`blocks.
    make_blocks` sets these same fields of a round without calling `__init__`: a field added
    here is added there.)"""

    __slots__ = ("kind", "phase", "round", "title", "line", "end", "offset", "stop")

    def __init__(self, kind: str, phase: str | None, round_number: int | None, title: str,
                 line: int, end: int, offset: int = -1) -> None:
        # Bulleted's three fields set here, not by a call: a 100,000-round log makes as many
        self._entries = None
        self._stray = []
        self._read = None
        self.kind = kind  # round, awaiting, confirmed, ..., artifact_*, legacy, unknown
        self.phase = phase
        self.round = round_number
        self.title = title
        self.line = line  # heading line, 0-based
        self.end = end  # first line after the block
        self.offset = offset  # where its heading line starts in the text (-1: not known)
        self.stop = -1  # where its text stops (set by the reader that made it)

    def get(self, key: str) -> list[Entry]:
        k = key.lower()
        return [e for e in self.entries if e.key_lower == k]

    def first(self, key: str) -> str | None:
        found = self.get(key)
        return found[0].value if found else None

    def __repr__(self) -> str:
        return f"Block({self.kind}, {self.phase}, {self.round}, line={self.line})"


class Option:
    """A nested bullet of a node's `Options:` entry (`Node.options` sets these same fields
    without calling `__init__`: a field added here is added there)."""

    __slots__ = ("text", "recommended", "line")

    def __init__(self, text: str, recommended: bool, line: int) -> None:
        self.text = text
        self.recommended = recommended
        self.line = line


class Node(Bulleted):
    """A design tree node `### <ID>: <title>` and its bullets. (`Progress._make_nodes` sets
    these same fields without calling `__init__`: a field added here is added there.)"""

    __slots__ = ("id", "title", "line", "end", "offset", "stop", "_options", "_refs")

    def __init__(self, node_id: str, title: str, line: int, end: int, offset: int = -1) -> None:
        # Bulleted's three fields set here, not by a call: a 10,000-node tree makes as many
        self._entries = None
        self._stray = []
        self._read = None
        self.id = node_id
        self.title = title
        self.line = line
        self.end = end
        self.offset = offset  # where its heading line starts in the text (-1: not known)
        self.stop = -1  # where its text stops (set by the reader that made it)
        self._options: list[Option] | None = None
        self._refs: tuple[tuple[str, ...], str | None] | None = None

    def _forget(self) -> None:
        self._options = None
        self._refs = None

    def set_references(self, refs: tuple[tuple[str, ...], str | None]) -> None:
        """What `references` would read from the entries, read by another pass over the
        same lines (`validate`'s check of the tree): the entries need not be made for it."""
        self._refs = refs

    @property
    def options(self) -> list[Option]:
        """The nested bullets of its `Options:` entries, the `(Recommended)` one marked."""
        options = self._options
        if options is None:
            options = self._options = []
            make = object.__new__  # as Option.__init__ makes one, without its frame
            for entry in self.entries:
                if entry.key_lower == "options":
                    for text, line in entry.children:
                        option = make(Option)
                        option.text = text
                        option.recommended = "(recommended)" in text.lower()
                        option.line = line
                        options.append(option)
        return options

    def first(self, key: str) -> str | None:
        """The value of the node's first `key` entry (keys read case-insensitively). Read
        by a scan: a node holds a handful of entries, and a dict of them per node cost
        `validate` more than every scan it saved."""
        wanted = key.lower()
        for entry in self.entries:
            if entry.key_lower == wanted:
                return entry.value
        return None

    @property
    def section(self) -> str | None:
        return self.first("Section")

    @property
    def depends_on(self) -> list[str]:
        """The IDs of its first `Depends on` entry."""
        return list(self.references()[0])

    @property
    def spawned_by(self) -> str | None:
        """The first ID of its first `Spawned by` entry."""
        return self.references()[1]

    def references(self) -> tuple[tuple[str, ...], str | None]:
        """(`depends_on`, `spawned_by`), read in one scan of its entries on first use: the
        checks, the loop search and the frontier each ask for them."""
        refs = self._refs
        if refs is None:
            depends = spawned = None
            for entry in self.entries:
                key = entry.key_lower
                if key == "depends on":
                    if depends is None:
                        depends = entry.value
                elif key == "spawned by" and spawned is None:
                    spawned = entry.value
            parents = split_ids(spawned)
            refs = self._refs = (tuple(split_ids(depends)), parents[0] if parents else None)
        return refs

    @property
    def investigating(self) -> str | None:
        return self.first("Investigating")

    def choices(self) -> tuple[list[str], int | None]:
        """The options' texts, and the 1-based number of the recommended one (if any)."""
        texts = [o.text for o in self.options]
        recommended = next((i for i, o in enumerate(self.options, 1) if o.recommended), None)
        return texts, recommended

    def __repr__(self) -> str:
        return f"Node({self.id!r}, {self.title!r}, line={self.line})"


def split_ids(value: str | None) -> list[str]:
    """`D1, D2` -> [D1, D2]; `none`/empty -> []; `D4 -> the user's words` -> [D4]."""
    if value is None:
        return []
    text = value.split(" -> ", 1)[0].strip()
    if not text or text.lower() in ("none", "-", "n/a"):
        return []
    if ";" not in text:
        if "," not in text:
            return [text]  # one ID, as most lines name
        parts = text.split(",")
    else:
        parts = re.split(r"[,;]", text)
    return [part.strip() for part in parts if part.strip()]

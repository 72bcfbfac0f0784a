"""Three-way merge of a `.progress.md` that two branches changed (pure: texts in, text out).

What makes it mergeable is what the file is: the log is append-only, so each side's log is
the base's log plus what that side recorded; the design tree is a list of nodes with IDs;
the interview record follows from the two. So:

- the log keeps the base's blocks as they are, the lines each side appended to the base's
  last (open) round, then our new rounds, then theirs, renumbered after ours;
- the tree merges node by node, a node both sides changed key by key, and a key both sides
  changed line by line;
- the record is the side's that changed it, or, when both ran rounds of the same interview,
  recomputed: the round and questions of the last round, pending what nobody answered;
- the log's seal is recomputed over the merged log;
- everything else (the title, the goal, the person's own sections, front-matter keys and
  comments) merges line by line (`merge_lines`), both sides' additions kept.

A decision the two sides answered differently is a real conflict: where our answer stood,
standard conflict markers around the two answers only; lines changed two ways elsewhere get
markers around exactly those lines. Whatever this cannot merge in that way (a side whose log
breaks its own seal, a recorded block changed on a side, an approval on one side next to
rounds on the other, a result `validate` would reject) comes back as `Merged.cannot`, and
the caller leaves git's own conflict in place: nothing of either side is dropped.
"""

from __future__ import annotations

import functools
import gc
import re

from mdgrill.core.merge_lines import Clash, LineMerge, markers, merge_lines
from mdgrill.errors import InputError
from mdgrill.formats import frontmatter as frontmatter_io
from mdgrill.formats.frontmatter.block import top_key
from mdgrill.formats.progress import (
    LOG,
    TREE,
    Change,
    Progress,
    apply_change,
    classify_block,
    log_digest,
)
from mdgrill.formats.textfile import TextFile, content_lines
from mdgrill.model.tree import new_node_id, split_decision

# typing costs a merge-file 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.diagnostics import Diagnostic
    from mdgrill.formats.frontmatter import FrontMatter
    from mdgrill.formats.progress import Block

NEW_SEQUENCE = frozenset({"confirmed", "skipped", "bypassed", "reset", "reopened"})
# patterns compiled on first use (re caches them): most merges renumber nothing and place no
# conflict, and each compile is part of every merge-file's start
_ROUND_NUMBER = r"(Grill - Round )([0-9]+)"
ANSWER_KEYS = ("decisions", "facts resolved", "out of scope")


class Merged:
    """A merge's outcome: the text (None when it cannot be merged this way), the decisions
    answered two ways and the other lines changed two ways (then the text has conflict
    markers around exactly those), and what the merge did."""

    __slots__ = ("text", "conflicts", "marks", "clashes", "notes", "reason", "pattern")

    def __init__(self, text: str | None, reason: str = "") -> None:
        self.text = text
        self.conflicts: list[tuple[str, str, str]] = []  # (decision ID, ours, theirs)
        self.marks: list[tuple[list[str], list[str]]] = []  # (our answer, their answer) lines
        self.clashes: list[tuple[str, Clash]] = []  # (where, the lines changed two ways)
        self.notes: list[str] = []
        self.reason = reason
        self.pattern = ""  # with conflicts: what a resolution of them looks like

    @classmethod
    def cannot(cls, reason: str) -> Merged:
        return cls(None, reason)

    @property
    def in_conflict(self) -> bool:
        return bool(self.conflicts or self.clashes)


class LogBlock:
    """One block of the log as text: its heading title, its lines (no line ends, no trailing
    blank lines), its heading's line in the file and its index among the section's lines
    (what `restore.log_blocks` reads; defined here so that a merge does not load restore)."""

    __slots__ = ("title", "lines", "line", "start")

    def __init__(self, title: str, lines: list[str], line: int, start: int) -> None:
        self.title = title
        self.lines = lines
        self.line = line
        self.start = start


class Cannot(Exception):
    """What a three-way merge cannot do itself: the reason, for the caller to leave the
    file to git."""


def merge_progress(base_text: str, ours_text: str, theirs_text: str, path: str) -> Merged:
    try:
        return _merge(base_text, ours_text, theirs_text, path)
    except Cannot as exc:
        return Merged.cannot(str(exc))
    finally:  # the versions' parts are read once per merge (a 1,000-round file is ~1 MB)
        for cached in (_section_lines, _nodes, _blocks, _tree_text):
            cached.cache_clear()


@functools.cache
def _section_lines(prog: Progress, key: str) -> list[str]:
    """The lines of a section's content (after its heading line), split once per version:
    only the sections a merge reads are split, not a 1 MB file three times over."""
    return content_lines(prog.tf.text, *prog.section_offsets(prog.sections[key]))


@functools.cache
def _blocks(prog: Progress) -> list[LogBlock]:
    """The log's blocks (as `restore.log_blocks` reads them, from the lines split once)."""
    first = prog.sections[LOG].heading_line + 1
    body = _section_lines(prog, LOG)
    out = []
    for block in prog.blocks:
        lines = body[block.line - first:block.end - first]
        while lines and not lines[-1].strip():
            lines.pop()
        out.append(LogBlock(block.title, lines, block.line, block.line - first))
    return out


class _BaseLog:
    """The base's log as a merge takes it: its last block (`block` as the reader made it,
    `last` as lines), where its first block's heading starts (-1: no block), how many blocks
    stand before the last one, and the merged log's lines before the last block (`lines`:
    each of those blocks, trailing blank lines dropped, and a blank line after each). In a
    plain log that already reads so (`plain`, see `_plain_head`), those lines are the text
    itself, as one chunk, and the 1,000 blocks before the last are not read; else every
    block is read (`blocks()`), and the merge joins them itself (`lines` is not made)."""

    __slots__ = ("prog", "block", "last", "first", "before", "lines", "plain")

    def __init__(self, base: Progress) -> None:
        self.prog = base
        head = _plain_head(base)
        self.plain = head is not None
        self.block: Block | None
        self.last: LogBlock | None
        self.lines: list[str]
        if head is not None:
            self.block, self.last, self.first, self.before, self.lines = head
            return
        blocks = _blocks(base)
        self.block = base.blocks[-1] if blocks else None
        self.last = blocks[-1] if blocks else None
        self.first = base.blocks[0].offset if blocks else -1
        self.before = max(len(blocks) - 1, 0)
        self.lines = []

    def blocks(self) -> list[LogBlock]:
        """Every block of the base's log (read when a merge needs them all)."""
        return _blocks(self.prog)


_H3_ENDS = (" ", "\t", "\n")  # what follows `###` on a level-3 heading line (no CR here)


def _plain_head(base: Progress) -> tuple[Block, LogBlock, int, int, list[str]] | None:
    """`_BaseLog`'s parts from the text, when the log is plain (no fence, comment or
    indented `#`, no CR: every heading line starts with `#`), nothing but blanks stands
    before its first block, and the text from that block to the last one's heading is what
    the merged log's lines before the last block join to: no line of only blanks, no two
    blank lines in a row, a blank line before every line that starts with `#` (so before each
    block's heading), and one before the last block's. Then that text is those lines (each
    block's trailing blank lines dropped and a blank line after it is the text as it is).
    The blocks are counted by their headings; a count the reader does not confirm is caught
    by the merged file's check (`_sealed`). None when any of this does not hold."""
    text = base.tf.text
    if not base.plain or "\r" in text:
        return None
    block = base.last_block()
    if block is None:
        return None
    sec = base.sections[LOG]
    start, end = base.section_offsets(sec)
    at = text.find("\n#", start - 1, end)
    first = at + 1
    if at < 0 or first > block.offset or not text.startswith("###", first) or \
            text[first + 3:first + 4] not in _H3_ENDS or \
            (first > start and not text[start:first].isspace()):
        return None
    before = text[first:block.offset]
    count = 0
    if before:
        # one pass for the blank lines (a line of only blanks, or two empty lines in a row),
        # two counts for the headings: each line that starts with `#` is `### ` after an
        # empty line (neither count overlaps itself, so equal counts pair every `\n#` with
        # a `\n\n### `; a `###` heading with a tab or no text goes the long way)
        headings = before.count("\n\n### ")
        if not before.endswith("\n\n") or re.search(r"\n(?:[^\S\n]+\n|\n\n)", before) or \
                before.count("\n#") != headings:
            return None
        count = headings + 1
    lines = content_lines(text, block.offset, end)
    while lines and not lines[-1].strip():
        lines.pop()
    last = LogBlock(block.title, lines, block.line, block.line - sec.heading_line - 1)
    return block, last, first, count, [before[:-1]] if before else []


def _side_blocks(head: _BaseLog, side: Progress) -> tuple[list[LogBlock], int, bool]:
    """A side's log blocks, where the first one's heading starts in its text (-1: no block),
    and whether they start at the base's last block. A log is append-only: where the side's
    log begins with the base's, up to the heading of the base's last block, the blocks before
    that one are the base's (the same text reads the same), and only the rest is read, by the
    reader itself (that heading on, under the section's own heading): 1,000 recorded rounds
    are not read again for each side. Anything else reads the side's whole log."""
    base = head.prog
    b_sec, s_sec = base.sections[LOG], side.sections[LOG]
    b_start = base.section_offsets(b_sec)[0]
    s_start, s_end = side.section_offsets(s_sec)
    text = side.tf.text
    last = head.block
    at = s_start + last.offset - b_start if last is not None else s_end  # where it would be
    if last is None or at >= s_end or \
            not text.startswith(base.tf.text[b_start:last.offset], s_start):
        return _blocks(side), side.blocks[0].offset if side.blocks else -1, False
    heading = next(h for h in side.skeleton if h.line == s_sec.heading_line)
    try:
        rest = Progress(TextFile(text[heading.offset:s_start] + text[at:s_end]), side.path)
    except InputError:
        rest = None
    parts = rest.blocks if rest is not None and LOG in rest.sections else []
    if not parts or parts[0].line != 1:  # the side changed that block's heading
        return _blocks(side), side.blocks[0].offset if side.blocks else -1, False
    at_line = s_sec.start + last.line - b_sec.start  # the side's line at `at`
    lines = content_lines(text, at, s_end)
    first = s_sec.heading_line + 1
    out = []
    for i, part in enumerate(parts):
        line = part.line - 1 + at_line
        stop = parts[i + 1].line - 1 + at_line if i + 1 < len(parts) else s_sec.end
        chunk = lines[line - at_line:stop - at_line]
        while chunk and not chunk[-1].strip():
            chunk.pop()
        out.append(LogBlock(part.title, chunk, line, line - first))
    return out, s_start + head.first - b_start, True


@functools.cache
def _tree_text(prog: Progress) -> str:
    start, end = prog.section_offsets(prog.sections[TREE])
    return prog.tf.text[start:end]


def _tree_changed_on_both(base: Progress, ours: Progress, theirs: Progress) -> bool:
    """Whether both sides changed the design tree (else it is not even read node by node)."""
    theirs_tree = _tree_text(theirs)
    return theirs_tree not in (_tree_text(base), _tree_text(ours))


def _parse(text: str, path: str, side: str) -> Progress:
    try:
        prog = Progress(TextFile(text), path)
    except InputError as exc:
        raise Cannot(f"{side} version does not read ({exc.code})") from None
    if prog.fm is None:
        raise Cannot(f"{side} version has no front matter")
    for key, heading in ((TREE, "## Design Tree"), (LOG, "## Interview Responses")):
        if key not in prog.sections:
            raise Cannot(f"{side} version has no `{heading}`")
    return prog


PLACE = "\0mdgrill:"  # a line no decoded file holds (a NUL is refused on read)
# where a conflict will stand, until the record and the seal are written (printable: it may
# stand in the YAML front matter, as a comment)
CLASH = "\u2060mdgrill-conflict "
COMPUTED_KEYS = ("interview", "log")  # the record and the seal: recomputed, not line-merged


def _top_key(line: str) -> str | None:
    """The key a top-level front-matter line sets (not a list item's), read by hand as the
    front matter's own reader does: a lazy key before optional blanks was quadratic."""
    return None if line[:1] == "-" else top_key(line)


class _Skeleton:
    """One version's lines with the parts a finer rule merges (the tree, the log, the record,
    the seal) standing as one placeholder line each: everything else (the title, the goal,
    the person's own sections and front matter, comments) is merged line by line. The tree
    and the log are not split into lines here: each stands as its text (lines and LFs), or,
    in a file with CRs, as its lines."""

    def __init__(self, prog: Progress) -> None:
        text = prog.tf.text
        self.parts: dict[str, list[str]] = {}
        self.lines: list[str] = []
        spans = sorted((prog.section_offsets(prog.sections[key]), key) for key in (TREE, LOG))
        pos = 0
        for (start, end), key in spans:
            self._add(content_lines(text, pos, start), pos == 0, prog.body_line - 1)
            pos = start
            if start < len(text):  # a heading that ends the file has no line after it
                self._section(text, start, end, key)
                pos = end
        self._add(content_lines(text, pos, len(text)), pos == 0, prog.body_line - 1)

    def _add(self, lines: list[str], top: bool, fm_last: int) -> None:
        """Lines outside the tree and the log; at the top of the file (`top`) the record and
        the seal in the front matter (which ends at line `fm_last`) stand as placeholders."""
        i = 0
        while i < len(lines):
            key = _top_key(lines[i]) if top and 0 < i < fm_last else None
            if key is None or key not in COMPUTED_KEYS:
                self.lines.append(lines[i])
                i += 1
                continue
            j = i + 1
            while j < fm_last and lines[j][:1] in (" ", "\t", "-") and \
                    not lines[j].startswith("---"):
                j += 1
            self.parts[key] = lines[i:j]
            self.lines.append(PLACE + key)
            i = j

    def _section(self, text: str, start: int, end: int, key: str) -> None:
        """The section's own lines as the part `key`; blank lines around them stay here."""
        first = start  # where its first line with more than blanks starts
        while first < end and text[first].isspace():
            first += 1
        if first == end:
            self.lines.extend(content_lines(text, start, end))
            self.parts[key] = []
            self.lines.append(PLACE + key)
            return
        first = text.rfind("\n", start, first) + 1 or start
        stop = end  # just after its last character that is not a blank
        while text[stop - 1].isspace():
            stop -= 1
        stop = text.find("\n", stop, end)
        stop = end if stop < 0 else stop + 1  # where the lines after it start
        self.lines.extend(content_lines(text, start, first))
        if "\r" in text:
            self.parts[key] = content_lines(text, first, stop)
        else:  # the lines as one text, joined as the merged text joins them
            self.parts[key] = [text[first:stop - 1 if text[stop - 1:stop] == "\n" else stop]]
        self.lines.append(PLACE + key)
        self.lines.extend(content_lines(text, stop, end))


def _unite(ours: list[str], theirs: list[str]) -> bool:
    """Two additions at one place stand one after the other unless both set one key."""
    def keys(lines: list[str]) -> set[str]:
        return {key for line in lines if (key := _top_key(line)) is not None}
    return not keys(ours) & keys(theirs)


class _Clashes:
    """The lines changed two ways, each standing as a placeholder line in the text until
    the record and the seal are written, then as conflict markers."""

    def __init__(self, result: Merged) -> None:
        self.result = result

    def place(self, clash: Clash, where: str, comment: str = "<!-- {} -->") -> str:
        for lines in (clash.base, clash.ours, clash.theirs):
            if any(line.startswith(PLACE) or line.strip() == "---" for line in lines):
                raise Cannot(f"{where} was changed two ways around mdgrill's own parts: merge "
                             "by hand")
        self.result.clashes.append((where, clash))
        return comment.format(f"{CLASH}clash {len(self.result.clashes) - 1}")


def _placed(merge: LineMerge, clashes: _Clashes, where: str) -> list[str]:
    return [p if isinstance(p, str) else clashes.place(p, where) for p in merge.parts]


def _merge(base_text: str, ours_text: str, theirs_text: str, path: str) -> Merged:
    base = _parse(base_text, path, "the base")
    ours = _parse(ours_text, path, "our")
    theirs = _parse(theirs_text, path, "their")
    _own_seals(ours, theirs)
    result = Merged(None)
    clashes = _Clashes(result)
    renames = _collisions(base, ours, theirs) if _tree_changed_on_both(base, ours, theirs) \
        else {}
    if renames:  # both branches took one ID for two questions: theirs gets a new one
        theirs_text = _renamed(theirs_text, renames)
        theirs = _parse(theirs_text, path, "their")
        result.notes.extend(f"both sides added {old} for different questions: theirs is "
                            f"{new} now, with every reference to it" for old, new in
                            renames.items())
    sides = [_Skeleton(p) for p in (base, ours, theirs)]
    tree = _tree(base, ours, theirs, result, clashes)
    log, blocks, record = _log(base, ours, theirs, result)
    merged = merge_lines(sides[0].lines, sides[1].lines, sides[2].lines, unite=_unite)
    body = False
    heading = "the title"
    out: list[str] = []
    for n, part in enumerate(merged.parts):
        if isinstance(part, Clash):
            out.append(clashes.place(part, f"the text under `{heading}`" if body else
                                     "the front matter", "<!-- {} -->" if body else "# {}"))
            continue
        if n and part == "---" and not body:
            body = True
        elif body and part.startswith("#"):
            heading = part.strip()
        if not part.startswith(PLACE):
            out.append(part)
            continue
        key = part[len(PLACE):]
        fresh = {TREE: tree, LOG: log}.get(key)
        if fresh is not None:
            out += fresh
        else:
            out += next(s.parts[key] for s in (sides[1], sides[2], sides[0]) if key in s.parts)
    nl = ours.tf.newline
    text = nl.join(out) + (nl if ours_text.endswith(("\n", "\r")) else "")
    checked = None if result.in_conflict else _sealed(text, path, record, log, blocks, ours)
    if checked is not None:
        text, errors = checked
    else:  # conflicts, or a text the one parse could not vouch for: parsed, sealed, checked
        text, errors = _sealed_apart(text, path, record, log is not None, result)
        if result.in_conflict:
            result.text = _with_markers(text, result)
            return result
    result.text = text
    if errors:
        return Merged.cannot(f"the merged file would not validate ({errors[0].code}: "
                             f"{errors[0].message})")
    return result


def _own_seals(ours: Progress, theirs: Progress) -> None:
    """Refused: a side whose log no longer matches its own seal (`validate`'s ROUND_EDITED,
    `Progress.log_seal`), whose recorded log was edited by hand there (a line typed into a
    recorded block or the open round, a block dropped): merged, the edit would be sealed in
    as if mdgrill had written it, as `restore` refuses to reseal from such a copy. Read before
    theirs' IDs are renamed (that changes their log); a side with no seal is merged as it is."""
    broken = [who for prog, who in ((ours, "our"), (theirs, "their"))
              if prog.log_seal() is False]
    if broken:
        logs = f"{broken[0]} log does not match its" if len(broken) == 1 else \
            "our log and their log do not match their"
        raise Cannot(f"ROUND_EDITED: {logs} own seal (a recorded block was edited by hand), "
                     "and a merge would seal the edit in: on that branch put the block back as "
                     "it was recorded (`mdgrill restore`, or git), record the change with "
                     "`mdgrill amend` or `mdgrill revise`, commit, then merge again")


def _sealed(text: str, path: str, record: dict[str, object] | None, log: list[str] | None,
            blocks: int, ours: Progress) -> tuple[str, list[Diagnostic]] | None:
    """The merged text with its record and seal written, and its errors, from one parse:
    the seal is worked out from the merged log's own lines (`blocks` blocks), and the check's
    parse of the sealed text confirms it, as the count and digest a parse of `text` gives
    (its body is the same), which is what `_sealed_apart` seals with. None when the parse
    does not confirm it or a step does not read: then `_sealed_apart`, whose outcome this is
    in every other case (a 1,000-round file parsed once less, 5% of a merge). A text with
    conflict markers is refused by that parse too, and goes there as well.

    The front matter is read to change it unless its lines are ours, to their closing fence
    and its line end (what `reread_progress` asks): then ours' reading of them is theirs."""
    from mdgrill.checks.spec import validate_progress_parsed

    tf = TextFile(text)
    try:
        fm = frontmatter_io.split(tf, path)
        if fm is None:
            return None
        head = text[:fm.end_offset]
        digest = log_digest("\n".join(log)) if log is not None else ""
        updates = _updates(record, None if log is None else (blocks, digest))
        if updates:  # only the front matter changes: its own lines are parsed to change it
            change = Change()
            change.updates.update(updates)
            head = apply_change(Progress(TextFile(head, newline=tf.newline), path,
                                         _front_of(head, ours)), change)
    except InputError:
        return None
    sealed = head + text[fm.end_offset:]
    collecting = gc.isenabled()
    gc.disable()  # as validate_progress_bytes: the parse holds no cycle, freed before gc is on
    try:
        found, prog = validate_progress_parsed(sealed.encode("utf-8"), path)
        confirmed = prog is not None and prog.fm is not None and \
            prog.fm.end_offset == len(head) and \
            (log is None or (len(prog.blocks) == blocks and prog.log_sha256() == digest))
        del prog
    finally:
        if collecting:
            gc.enable()
    return (sealed, [d for d in found if d.severity == "error"]) if confirmed else None


def _front_of(head: str, ours: Progress) -> FrontMatter | None:
    """Ours' front matter as read, when `head` is its text to the closing fence's line end."""
    fm = ours.fm
    if fm is not None and fm.end_offset == len(head) and head.endswith("\n") and \
            ours.tf.text.startswith(head):
        return fm
    return None


def _updates(record: dict[str, object] | None, seal: tuple[int, str] | None,
             ) -> dict[str, object]:
    """The front matter keys a merge writes: the record, and the log's seal."""
    updates: dict[str, object] = {}
    if record is not None:
        updates["interview"] = record
    if seal is not None:
        updates["log"] = {"blocks": seal[0], "sha256": seal[1]}
    return updates


def _sealed_apart(text: str, path: str, record: dict[str, object] | None, sealing: bool,
                  result: Merged) -> tuple[str, list[Diagnostic]]:
    """The merged text with its record and seal written from a parse of it, and (unless it
    is in conflict) its errors from a second parse."""
    try:
        prog = Progress(TextFile(text), path)
    except InputError as exc:
        raise Cannot(f"the merged file does not read ({exc.code}: {exc.message})") from None
    updates = _updates(record, (len(prog.blocks), prog.log_sha256()) if sealing else None)
    if updates:
        change = Change()
        change.updates.update(updates)
        text = apply_change(prog, change)
    if result.in_conflict:
        return text, []
    from mdgrill.checks.spec import validate_progress_bytes

    return text, [d for d in validate_progress_bytes(text.encode("utf-8"), path)
                  if d.severity == "error"]


# -- the design tree --------------------------------------------------------------------------


@functools.cache
def _nodes(prog: Progress) -> dict[str, list[str]]:
    """Node ID -> its lines (heading first, no trailing blank lines), in the tree's order."""
    lines = _section_lines(prog, TREE)
    first = prog.sections[TREE].heading_line + 1
    out: dict[str, list[str]] = {}
    for node in prog.nodes:
        chunk = lines[node.line - first:node.end - first]
        while chunk and not chunk[-1].strip():
            chunk.pop()
        if node.id in out:
            raise Cannot(f"{node.id} is two nodes in one version: fix that first")
        out[node.id] = chunk
    return out


def _tree(base: Progress, ours: Progress, theirs: Progress, result: Merged,
          clashes: _Clashes) -> list[str] | None:
    """The merged tree's lines, or None when ours stands as it is."""
    if _tree_text(theirs) == _tree_text(base):
        return None
    if _tree_text(ours) == _tree_text(base):  # theirs, as it is (blank lines around aside)
        lines = _section_lines(theirs, TREE)[:]
        while lines and not lines[-1].strip():
            lines.pop()
        return lines[next((i for i, line in enumerate(lines) if line.strip()), len(lines)):]
    b, o, t = _nodes(base), _nodes(ours), _nodes(theirs)
    bi, oi, ti = _intro(base), _intro(ours), _intro(theirs)
    if t in (b, o) and ti in (bi, oi):
        return None
    merged: list[list[str]] = []
    for node_id in dict.fromkeys([*o, *t]):
        got = _three(b.get(node_id), o.get(node_id), t.get(node_id), node_id, clashes)
        if got:
            merged.append(got)
    out = _placed(merge_lines(bi, oi, ti), clashes, "the text above the design tree's nodes")
    for chunk in merged:
        out += ["", *chunk] if out else chunk
    result.notes.append(f"design tree: {len(merged)} nodes after the merge")
    return out


def _collisions(base: Progress, ours: Progress, theirs: Progress) -> dict[str, str]:
    """Their node ID -> a new one, for each ID both sides added to different questions."""
    b, o, t = _nodes(base), _nodes(ours), _nodes(theirs)
    taken = set(b) | set(o) | set(t)
    renames: dict[str, str] = {}
    for node_id, chunk in t.items():
        if node_id in b or node_id not in o or o[node_id] == chunk:
            continue
        new = new_node_id(chunk[0], "merge\0" + "\n".join(chunk), taken)
        taken.add(new)
        renames[node_id] = new
    return renames


def _renamed(text: str, renames: dict[str, str]) -> str:
    """The text with each renamed ID replaced wherever it stands as an ID (not inside a
    longer one): their node's heading, their references, their rounds and record."""
    for old, new in renames.items():
        text = re.sub(rf"(?<![A-Za-z0-9._-]){re.escape(old)}(?![A-Za-z0-9_-]|\.[A-Za-z0-9])",
                      new, text)
    return text


def _intro(prog: Progress) -> list[str]:
    """The tree section's lines above its first node."""
    sec = prog.sections[TREE]
    first_node = min((n.line for n in prog.nodes), default=sec.end)
    intro = _section_lines(prog, TREE)[:first_node - sec.heading_line - 1]
    while intro and not intro[-1].strip():
        intro.pop()
    while intro and not intro[0].strip():
        intro.pop(0)
    return intro


def _three(b: list[str] | None, o: list[str] | None, t: list[str] | None,
           node_id: str, clashes: _Clashes) -> list[str] | None:
    if o == t or t == b:
        return o
    if o == b:
        return t
    if b is None or o is None or t is None:  # removed on one side, changed on the other
        return _placed(merge_lines(b or [], o or [], t or []), clashes, node_id)
    return _by_key(b, o, t, node_id, clashes)


def _entries(chunk: list[str]) -> tuple[str, list[tuple[str, list[str]]]]:
    """A node's heading and its entries: (key, lines) for each `- Key:` and what nests in it."""
    entries: list[tuple[str, list[str]]] = []
    for line in chunk[1:]:
        if line.startswith(("- ", "* ")) and ":" in line:
            entries.append((line[2:].split(":", 1)[0].strip().lower(), [line]))
        elif entries:
            entries[-1][1].append(line)
        else:
            entries.append(("", [line]))
    return chunk[0], entries


def _by_key(b: list[str], o: list[str], t: list[str], node_id: str,
            clashes: _Clashes) -> list[str]:
    """A node both sides changed, merged key by key; a key (or the notes under it) changed
    two ways merges line by line, and what still clashes is marked."""
    (bh, be), (oh, oe), (th, te) = _entries(b), _entries(o), _entries(t)
    bd, od, td = dict(be), dict(oe), dict(te)
    if len(bd) != len(be) or len(od) != len(oe) or len(td) != len(te):
        return _placed(merge_lines(b, o, t), clashes, node_id)
    out = _placed(merge_lines([bh], [oh], [th]), clashes, f"{node_id}'s question")
    for key in dict.fromkeys([*od, *td]):
        bk, ok, tk = bd.get(key), od.get(key), td.get(key)
        if ok == tk or tk == bk:
            out.extend(ok or [])
        elif ok == bk:
            out.extend(tk or [])
        else:
            out.extend(_placed(merge_lines(bk or [], ok or [], tk or []), clashes,
                               f"{node_id}'s `{key or 'text'}`"))
    return out


# -- the log and the record ----------------------------------------------------------------


def _after_base(base: list[LogBlock], side: list[LogBlock], who: str,
                ) -> tuple[list[str], list[LogBlock]]:
    """(lines appended to the base's last block, blocks after it) of one side's log."""
    if len(side) < len(base):
        raise Cannot(f"{who} log lost a recorded block")
    for i, block in enumerate(base[:-1]):
        if block.title != side[i].title or side[i].lines != block.lines:
            raise Cannot(f"{who} version changed the recorded block `{block.title}`")
    if not base:
        return [], side
    # the base's open round: its lines stay, in order, and what a side added is ext (after
    # a cherry-pick the base's own additions may stand after the side's)
    last, mine = base[-1], side[len(base) - 1]
    ext: list[str] = []
    at = 0
    for line in mine.lines:
        if at < len(last.lines) and line == last.lines[at]:
            at += 1
        else:
            ext.append(line)
    if last.title != mine.title or at < len(last.lines) or mine.lines[0] != last.lines[0] or \
            (ext and _kind(last)[0] not in _APPENDED_TO):
        raise Cannot(f"{who} version changed the recorded block `{last.title}`")
    return ext, side[len(base):]


# the last blocks a verb appends lines to: an open round (and, as before, a block this version
# does not know); an approval, transition or amendment block is whole once written
_APPENDED_TO = frozenset({"round", "legacy", "unknown"})


def _kind(block: LogBlock) -> tuple[str, str | None, int | None]:
    found = classify_block(block.title, -1, -1)
    return found.kind, found.phase, found.round


def _last_round(blocks: list[LogBlock], phase: str | None) -> int:
    number = 0
    for block in blocks:
        kind, block_phase, round_number = _kind(block)
        if block_phase != phase:
            continue
        if kind == "round" and round_number is not None:
            number = round_number
        elif kind in NEW_SEQUENCE:
            number = 0
    return number


def _answers(lines: list[str]) -> dict[str, tuple[str, int]]:
    """Decision ID -> (its answer line, index) among the lines that answer decisions."""
    out: dict[str, tuple[str, int]] = {}
    for i, line in enumerate(lines):
        key, sep, value = line[2:].partition(":") if line.startswith("- ") else ("", "", "")
        if sep and key.strip().lower() in ANSWER_KEYS:
            pair = split_decision(value.strip())
            if pair is not None:
                out[pair[0]] = (line, i)
    return out


def _log(base: Progress, ours: Progress, theirs: Progress, result: Merged,
         ) -> tuple[list[str] | None, int, dict[str, object] | None]:
    """The merged log's lines (None: ours stands), how many blocks they are, and the record
    (None: ours stands)."""
    head = _BaseLog(base)
    (o, o_first, o_tail), (t, t_first, t_tail) = _side_blocks(head, ours), \
        _side_blocks(head, theirs)
    # the blocks before the base's last one stand as `head.lines` when both sides kept them
    # as they were (then `b` is the last block alone); else every block is read
    if o_tail and t_tail and head.last is not None and head.plain:
        b, before, prefix = [head.last], head.before, head.lines
    else:
        b, before, prefix = head.blocks(), 0, []
        o, t = (b[:-1] + o if o_tail else o), (b[:-1] + t if t_tail else t)
    for prog, first, who in ((base, head.first, "the base's"), (ours, o_first, "our"),
                             (theirs, t_first, "their")):
        if _text_before_blocks(prog, first):
            raise Cannot(f"{who} log has text before its first block: merge by hand")
    o_ext, o_new = _after_base(b, o, "our")
    t_ext, t_new = _after_base(b, t, "their")
    b_iv, o_iv, t_iv = (p.data.get("interview") for p in (base, ours, theirs))
    if not t_ext and not t_new:
        if t_iv not in (b_iv, o_iv):
            raise Cannot("the interview record was changed on both sides, but only ours "
                          "recorded anything")
        return None, 0, None
    if not o_ext and not o_new:
        return prefix + _lines(b, t_ext, t_new), before + len(b) + len(t_new), \
            t_iv if isinstance(t_iv, dict) else None
    if not o_ext and not t_ext and all(_kind(x)[0] in _BINDING for x in o_new + t_new):
        lines, count = _bindings_only(b, o_new, t_new, o_iv, t_iv, result)
        return prefix + lines, before + count, None
    for block in o_new + t_new:
        if _kind(block)[0] != "round":
            raise Cannot(f"`{block.title}` was recorded on one side while the other side "
                          "recorded rounds: an approval or transition never carries over to "
                          "rounds it did not see; merge by hand and ask again")
    extra = [line for line in t_ext if line not in o_ext]
    if o_new and extra:
        # We closed the shared round and went on: it is a recorded block now. Their closing
        # lines for it are mdgrill's own snapshot of that moment (the frontier, `none`s), and
        # ours stand; any other line of theirs would rewrite a closed block.
        ours_keys = {_key(line) for line in o_ext}
        answered = _answers(o_ext + [line for b in o_new for line in b.lines])
        # their last answer to a decision we answered is the same answer, or a conflict;
        # an earlier one of theirs (typed by hand above it) is a line of theirs all the same
        last = {line for line, _ in _answers(t_ext).values()}
        kept = [line for line in extra if not (_closing(line) and _key(line) in ours_keys)
                and not (_answer_unit_of(line, answered) and
                         (line in last or _key(line) == "by"))]
        if kept:
            raise Cannot(f"their lines `{kept[0]}` belong in the round we had already closed: "
                          "merge by hand")
        result.notes.append("their closing lines of the shared round: ours stand")
        extra = []
    ext = o_ext + extra
    renumbered: list[LogBlock] = []
    if t_new:  # their rounds are numbered on from ours, read from every block
        whole = head.blocks() if prefix else b
        renumbered = _renumber(whole + o_new, t_new, whole)
    lines = prefix + _lines(b, ext, o_new + renumbered)
    first = len(prefix) + _line_count(b)  # the first line either side added
    record = _record(b_iv, o_iv, t_iv, renumbered, lines[first:])
    _conflicts(o_ext + [line for block in o_new for line in block.lines],
               t_ext + [line for block in renumbered for line in block.lines],
               lines, first, result)
    if renumbered:
        result.notes.append(f"their {len(renumbered)} new round(s) follow ours, renumbered")
    return lines, before + len(b) + len(o_new) + len(renumbered), record


_BINDING = frozenset({"bound", "reaffirmed"})


def _bindings_only(b: list[LogBlock], o_new: list[LogBlock], t_new: list[LogBlock],
                   o_iv: object, t_iv: object, result: Merged) -> tuple[list[str], int]:
    """Both sides only bound decisions to code (or reaffirmed them): notes about the code,
    not steps of the interview, so both are kept, ours first (theirs win where both bound
    the same target again, as a later block does)."""
    if o_iv != t_iv:
        raise Cannot("the interview record was changed on both sides: merge by hand")
    ours = {(x.title, tuple(x.lines)) for x in o_new}
    theirs = [x for x in t_new if (x.title, tuple(x.lines)) not in ours]
    result.notes.append(f"bindings recorded on both sides: their {len(theirs)} block(s) "
                        "follow ours")
    return _lines(b, [], o_new + theirs), len(b) + len(o_new) + len(theirs)


CLOSING = ("facts resolved", "decisions", "out of scope", "domain language",
           "frontier after round")


def _key(line: str) -> str:
    return line[2:].partition(":")[0].strip().lower() if line.startswith("- ") else ""


def _closing(line: str) -> bool:
    """A line mdgrill writes when it closes a round: the frontier, or a closing key's `none`."""
    key = _key(line)
    value = line.partition(":")[2].strip().lower()
    return key == "frontier after round" or (key in CLOSING and value == "none")


def _text_before_blocks(prog: Progress, first: int) -> bool:
    """Whether a line above the log's first block (whose heading starts at `first`; -1: the
    log has none) holds more than blanks."""
    start, end = prog.section_offsets(prog.sections[LOG])
    head = prog.tf.text[start:end if first < 0 else first]
    return bool(head) and not head.isspace()


def _renumber(before: list[LogBlock], theirs: list[LogBlock], base: list[LogBlock],
              ) -> list[LogBlock]:
    """Their new rounds numbered on from ours (their round N becomes ours' last + N - the
    base's last, per phase)."""
    out = []
    shifts: dict[str | None, int] = {}  # per phase: the two counts read each log whole
    for block in theirs:
        _, phase, number = _kind(block)
        if phase not in shifts:
            shifts[phase] = _last_round(before, phase) - _last_round(base, phase)
        shift = shifts[phase]
        if number is None or shift == 0:
            out.append(block)
            continue
        new = f"Grill - Round {number + shift}"
        heading = re.sub(_ROUND_NUMBER, new, block.lines[0], count=1)
        title = re.sub(_ROUND_NUMBER, new, block.title, count=1)
        out.append(LogBlock(title, [heading, *block.lines[1:]], block.line, block.start))
    return out


def _lines(base: list[LogBlock], ext: list[str], new: list[LogBlock]) -> list[str]:
    out: list[str] = []
    for i, block in enumerate(base):
        if out:
            out.append("")
        out.extend(block.lines)
        if i == len(base) - 1:
            out.extend(ext)
    for block in new:
        if out:
            out.append("")
        out.extend(block.lines)
    return out


def _line_count(blocks: list[LogBlock]) -> int:
    """len(_lines(blocks, [], [])), without making them."""
    count = 0
    for block in blocks:
        if count:
            count += 1
        count += len(block.lines)
    return count


def _answer_unit_of(line: str, answered: dict[str, tuple[str, int]]) -> bool:
    """Whether `line` answers (or names who answered) a decision the other side answered."""
    key, sep, value = line[2:].partition(":") if line.startswith("- ") else ("", "", "")
    pair = split_decision(value.strip()) if sep and key.strip().lower() in (*ANSWER_KEYS,
                                                                             "by") else None
    return pair is not None and pair[0] in answered


def _unit(lines: list[str], at: int, node_id: str) -> list[str]:
    """The answer at `at` with the `- By: ID -> who` line written with it, if any."""
    nxt = lines[at + 1] if at + 1 < len(lines) else ""
    pair = split_decision(nxt[2:].partition(":")[2].strip()) if _key(nxt) == "by" else None
    return lines[at:at + 2] if pair is not None and pair[0] == node_id else lines[at:at + 1]


def _conflicts(ours: list[str], theirs: list[str], lines: list[str], first: int,
               result: Merged) -> None:
    """Each decision the two sides answered differently: our answer (with its `By:`) in the
    merged log gives way to a placeholder for the markers, and theirs leaves its place."""
    mine_at, theirs_at = _answers(ours), _answers(theirs)
    for node_id, (their_line, t_i) in theirs_at.items():
        mine = mine_at.get(node_id)
        if mine is None or _answer_of(mine[0]) == _answer_of(their_line):
            continue
        our_unit, their_unit = _unit(ours, mine[1], node_id), _unit(theirs, t_i, node_id)
        result.conflicts.append((node_id, _answer_of(mine[0]), _answer_of(their_line)))
        result.marks.append((our_unit, their_unit))
        at = lines.index(mine[0], first)
        lines[at:at + len(_unit(lines, at, node_id))] = \
            [f"<!-- {CLASH}answer {len(result.marks) - 1} -->"]
        there = [i for i in range(first, len(lines)) if lines[i] == their_line]
        if there:
            del lines[there[-1]:there[-1] + len(_unit(lines, there[-1], node_id))]


_PLACED = f"^(?:<!-- |# ){CLASH}(clash|answer) ([0-9]+)(?: -->)?$"


def _with_markers(text: str, result: Merged) -> str:
    """Each placeholder as standard conflict markers around the lines the two sides wrote;
    `result.pattern` then matches the text each conflict resolved (an answer: one of the
    two; other lines: whatever the person wrote)."""
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(nl)
    ends = lines[-1] == ""
    if ends:
        lines.pop()
    out: list[str] = []
    pattern: list[str] = []
    for line in lines:
        m = re.match(_PLACED, line)
        if m is None:
            out.append(line)
            pattern.append(re.escape(line + "\n"))
        elif m.group(1) == "clash":
            out += markers(result.clashes[int(m.group(2))][1])
            pattern.append("(?:[^\n]*\n)*?")
        else:
            mine, theirs = result.marks[int(m.group(2))]
            out += markers(Clash([], mine, theirs))
            pattern.append("(?:" + "|".join(re.escape("\n".join(u) + "\n")
                                             for u in (mine, theirs)) + ")")
    result.pattern = "".join(pattern)
    return nl.join(out) + (nl if ends else "")


def _answer_of(line: str) -> str:
    pair = split_decision(line[2:].partition(":")[2].strip())
    return pair[1] if pair else line


def _record(b_iv: object, o_iv: object, t_iv: object, t_new: list[LogBlock],
            lines: list[str]) -> dict[str, object]:
    """The record after both sides recorded rounds of the same interview (`lines`: what the
    two added to the log; what the base had answered was never pending)."""
    if not isinstance(o_iv, dict) or not isinstance(t_iv, dict):
        raise Cannot("a side recorded rounds without an interview record")
    same = ("id", "phase", "context_digest", "context", "approach", "confirmation",
            "bypass_reason")
    if any(o_iv.get(k) != t_iv.get(k) for k in same) or \
            o_iv.get("status") != "collecting" or t_iv.get("status") != "collecting":
        raise Cannot(f"the two sides' interviews differ ({o_iv.get('id')} "
                      f"{o_iv.get('status')}, {t_iv.get('id')} {t_iv.get('status')}): merge "
                      "by hand")
    answered = set(_answers(lines))
    record = dict(o_iv)
    # what either side asked stays asked, and pending until one of them answered it: an ID
    # only our side asked must not fall out of `pending:` (ASKED_WITHOUT_OUTCOME, issue 31.5)
    asked = _union(o_iv.get("asked"), t_iv.get("asked"))
    pending = [i for i in _union(o_iv.get("pending"), t_iv.get("pending"))
               if i not in answered]
    record.update(asked=asked, pending=pending)
    if t_new:
        _, _, number = _kind(t_new[-1])
        record.update(round=number, round_frontier=t_iv.get("round_frontier"))
    return record


def _union(first: object, second: object) -> list[object]:
    """The items of two lists, each once, in the order they first appear."""
    return list(dict.fromkeys([*(first if isinstance(first, list) else []),
                               *(second if isinstance(second, list) else [])]))


def resolution(merged: Merged, worktree: str, path: str) -> str | None:
    """`worktree` resealed, when it is `merged.text` with each conflict resolved: each answer
    conflict by one of its two answers, other lines as the person chose; None otherwise."""
    if merged.text is None or not merged.in_conflict:
        return None
    text = worktree.replace("\r\n", "\n")
    if not text.endswith("\n"):
        text += "\n"
    if re.fullmatch(merged.pattern, text) is None:
        return None
    try:
        prog = Progress(TextFile(worktree), path)
    except InputError:
        return None  # markers left, or a front matter that does not read
    change = Change()
    change.updates["log"] = {"blocks": len(prog.blocks), "sha256": prog.log_sha256()}
    return apply_change(prog, change)

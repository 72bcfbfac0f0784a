"""Three-way merge of a `.progress.md` that two branches changed (pure: texts in, text out).

What makes it mergeable is what the file is: the log is append-only, so each side's log is
the base's log plus what that side recorded; the design tree is a list of nodes with IDs;
the interview record follows from the two. So:

- the log keeps the base's blocks as they are, the lines each side appended to the base's
  last (open) round, then our new rounds, then theirs, renumbered after ours;
- the tree merges node by node, and a node both sides changed merges key by key;
- the record is the side's that changed it, or, when both ran rounds of the same interview,
  recomputed: the round and questions of the last round, pending what nobody answered;
- the log's seal is recomputed over the merged log.

A decision the two sides answered differently is a real conflict: the result carries
standard conflict markers around the two answers only, and `validate` names the decision.
Whatever this cannot merge in that way (a recorded block changed on a side, an approval on
one side next to rounds on the other, a key changed two ways, a result `validate` would
reject) comes back as `Merged.cannot`, and the caller leaves git's own conflict in place:
nothing of either side is dropped.
"""

from __future__ import annotations

import re

from mdgrill.core.restore import LogBlock, log_blocks, section_lines
from mdgrill.errors import InputError
from mdgrill.formats.progress import (
    LOG,
    TREE,
    Change,
    Progress,
    apply_change,
    classify_block,
    log_digest,
)
from mdgrill.formats.textfile import Edit, TextFile, apply_edits, content
from mdgrill.model.tree import new_node_id, split_decision

NEW_SEQUENCE = frozenset({"confirmed", "skipped", "bypassed", "reset", "reopened"})
_ROUND_NUMBER = re.compile(r"(Grill - Round )([0-9]+)")
ANSWER_KEYS = ("decisions", "facts resolved", "out of scope")


class Merged:
    """A merge's outcome: the text (None when it cannot be merged this way), the decisions
    answered two ways (then the text has conflict markers), and what the merge did."""

    __slots__ = ("text", "conflicts", "marks", "notes", "reason")

    def __init__(self, text: str | None, reason: str = "") -> None:
        self.text = text
        self.conflicts: list[tuple[str, str, str]] = []  # (decision ID, ours, theirs)
        self.marks: list[tuple[str, str]] = []  # (our answer line, their answer line)
        self.notes: list[str] = []
        self.reason = reason

    @classmethod
    def cannot(cls, reason: str) -> Merged:
        return cls(None, reason)


class Cannot(Exception):
    """What a three-way merge cannot do itself: the reason, for the caller to leave the
    file to git."""


def merge_progress(base_text: str, ours_text: str, theirs_text: str, path: str) -> Merged:
    try:
        return _merge(base_text, ours_text, theirs_text, path)
    except Cannot as exc:
        return Merged.cannot(str(exc))


def _parse(text: str, path: str, side: str) -> Progress:
    try:
        prog = Progress(TextFile(text), path)
    except InputError as exc:
        raise Cannot(f"{side}'s version does not read ({exc.code})") from None
    if prog.fm is None:
        raise Cannot(f"{side}'s version has no front matter")
    return prog


def _merge(base_text: str, ours_text: str, theirs_text: str, path: str) -> Merged:
    base = _parse(base_text, path, "the base")
    ours = _parse(ours_text, path, "our")
    theirs = _parse(theirs_text, path, "their")
    result = Merged(None)
    renames = _collisions(base, ours, theirs)
    if renames:  # both branches took one ID for two questions: theirs gets a new one
        theirs_text = _renamed(theirs_text, renames)
        theirs = _parse(theirs_text, path, "their")
        result.notes.extend(f"both sides added {old} for different questions: theirs is "
                            f"{new} now, with every reference to it" for old, new in
                            renames.items())
    updates = _front_matter(base, ours, theirs)
    tree = _tree(base, ours, theirs, result)
    log, record = _log(base, ours, theirs, result)
    text = ours_text
    prog = ours
    edits = []
    if tree is not None:
        edits.append(_section_edit(prog, TREE, tree))
    if log is not None:
        edits.append(_section_edit(prog, LOG, log))
    if edits:
        text = apply_edits(prog.tf, edits).text
        prog = Progress(prog.tf.with_text(text), path)
    if record is not None:
        updates["interview"] = record
    if log is not None:
        updates["log"] = {"blocks": len(prog.blocks), "sha256": log_digest(prog.log_text())}
    if updates:
        change = Change()
        change.updates.update(updates)
        text = apply_change(prog, change)
    if result.conflicts:
        result.text = _with_markers(text, result.marks)
        return result
    result.text = text
    from mdgrill.checks.spec import validate_progress_bytes

    errors = [d for d in validate_progress_bytes(text.encode("utf-8"), path)
              if d.severity == "error"]
    if errors:
        return Merged.cannot(f"the merged file would not validate ({errors[0].code}: "
                             f"{errors[0].message})")
    return result


# -- the front matter ------------------------------------------------------------------------


def _front_matter(base: Progress, ours: Progress, theirs: Progress) -> dict[str, object]:
    """Their changes to keys other than the record and the seal; a key both sides changed
    differently cannot be merged."""
    updates: dict[str, object] = {}
    for key in list(dict.fromkeys([*ours.data, *theirs.data])):
        if key in ("interview", "log"):
            continue
        b, o, t = base.data.get(key), ours.data.get(key), theirs.data.get(key)
        if o == t or t == b:
            continue
        if o != b:
            raise Cannot(f"`{key}:` was changed on both sides ({o!r} and {t!r})")
        updates[key] = t
    return updates


# -- the design tree --------------------------------------------------------------------------


def _nodes(prog: Progress) -> dict[str, list[str]]:
    """Node ID -> its lines (heading first, no trailing blank lines), in the tree's order."""
    lines = prog.lines
    out: dict[str, list[str]] = {}
    for node in prog.nodes:
        chunk = [content(line) for line in lines[node.line:min(node.end, len(lines))]]
        while chunk and not chunk[-1].strip():
            chunk.pop()
        if node.id in out:
            raise Cannot(f"{node.id} is two nodes in one version: fix that first")
        out[node.id] = chunk
    return out


def _tree(base: Progress, ours: Progress, theirs: Progress, result: Merged) -> list[str] | None:
    """The merged tree's lines, or None when ours stands as it is."""
    b, o, t = _nodes(base), _nodes(ours), _nodes(theirs)
    if t in (b, o):
        return None
    merged: list[list[str]] = []
    for node_id in dict.fromkeys([*o, *t]):
        got = _three(b.get(node_id), o.get(node_id), t.get(node_id), node_id)
        if got is not None:
            merged.append(got)
    intro = _one(_intro(base), _intro(ours), _intro(theirs), "the design tree", "text above "
                 "its nodes")
    out: list[str] = list(intro) if isinstance(intro, list) else []
    for chunk in merged:
        out += ["", *chunk]
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
    intro = [content(line) for line in prog.lines[sec.heading_line + 1:first_node]]
    while intro and not intro[-1].strip():
        intro.pop()
    while intro and not intro[0].strip():
        intro.pop(0)
    return intro


def _three(b: list[str] | None, o: list[str] | None, t: list[str] | None,
           node_id: str) -> list[str] | None:
    if o == t or t == b:
        return o
    if o == b:
        return t
    if b is None or o is None or t is None:
        raise Cannot(f"{node_id} was added (or removed) on both sides differently: give one "
                      "of them a new ID")
    return _by_key(b, o, t, node_id)


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


def _by_key(b: list[str], o: list[str], t: list[str], node_id: str) -> list[str]:
    """A node both sides changed, merged key by key (a key changed two ways cannot)."""
    (bh, be), (oh, oe), (th, te) = _entries(b), _entries(o), _entries(t)
    heading = _one(bh, oh, th, node_id, "its question")
    bd, od, td = dict(be), dict(oe), dict(te)
    if len(bd) != len(be) or len(od) != len(oe) or len(td) != len(te):
        raise Cannot(f"{node_id} was changed on both sides and repeats a key")
    out = [str(heading)]
    for key in dict.fromkeys([*od, *td]):
        got = _one(bd.get(key), od.get(key), td.get(key), node_id, f"`{key}`")
        if isinstance(got, list):
            out.extend(str(line) for line in got)
    return out


def _one(b: object, o: object, t: object, node_id: str, what: str) -> object:
    if o == t or t == b:
        return o
    if o == b:
        return t
    raise Cannot(f"{node_id}'s {what} was changed on both sides differently")


# -- the log and the record ----------------------------------------------------------------


def _after_base(base: list[LogBlock], side: list[LogBlock], who: str,
                ) -> tuple[list[str], list[LogBlock]]:
    """(lines appended to the base's last block, blocks after it) of one side's log."""
    if len(side) < len(base):
        raise Cannot(f"{who} log lost a recorded block")
    for i, block in enumerate(base):
        mine = side[i]
        if block.title != mine.title or mine.lines[:len(block.lines)] != block.lines or \
                (i < len(base) - 1 and mine.lines != block.lines):
            raise Cannot(f"{who} version changed the recorded block `{block.title}`")
    ext = side[len(base) - 1].lines[len(base[-1].lines):] if base else []
    return ext, side[len(base):]


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
         ) -> tuple[list[str] | None, dict[str, object] | None]:
    """The merged log's lines (None: ours stands) and the record (None: ours stands)."""
    for prog, who in ((base, "the base's"), (ours, "our"), (theirs, "their")):
        if _text_before_blocks(prog):
            raise Cannot(f"{who} log has text before its first block: merge by hand")
    b, o, t = log_blocks(base), log_blocks(ours), log_blocks(theirs)
    o_ext, o_new = _after_base(b, o, "our")
    t_ext, t_new = _after_base(b, t, "their")
    b_iv, o_iv, t_iv = (p.data.get("interview") for p in (base, ours, theirs))
    if not t_ext and not t_new:
        if t_iv not in (b_iv, o_iv):
            raise Cannot("the interview record was changed on both sides, but only ours "
                          "recorded anything")
        return None, None
    if not o_ext and not o_new:
        return _lines(b, t_ext, t_new), t_iv if isinstance(t_iv, dict) else None
    if not o_ext and not t_ext and all(_kind(x)[0] in _BINDING for x in o_new + t_new):
        return _bindings_only(b, o_new, t_new, o_iv, t_iv, result), None
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
        kept = [line for line in extra if not (_closing(line) and _key(line) in ours_keys)]
        if kept:
            raise Cannot(f"their lines `{kept[0]}` belong in the round we had already closed: "
                          "merge by hand")
        result.notes.append("their closing lines of the shared round: ours stand")
        extra = []
    ext = o_ext + extra
    renumbered = _renumber(b + o_new, t_new, b)
    lines = _lines(b, ext, o_new + renumbered)
    _conflicts(o_ext, o_new, t_ext, renumbered, result)
    record = _record(b_iv, o_iv, t_iv, renumbered, lines)
    if renumbered:
        result.notes.append(f"their {len(renumbered)} new round(s) follow ours, renumbered")
    return lines, record


_BINDING = frozenset({"bound", "reaffirmed"})


def _bindings_only(b: list[LogBlock], o_new: list[LogBlock], t_new: list[LogBlock],
                   o_iv: object, t_iv: object, result: Merged) -> list[str]:
    """Both sides only bound decisions to code (or reaffirmed them): notes about the code,
    not steps of the interview, so both are kept, ours first (theirs win where both bound
    the same target again, as a later block does)."""
    if o_iv != t_iv:
        raise Cannot("the interview record was changed on both sides: merge by hand")
    ours = {(x.title, tuple(x.lines)) for x in o_new}
    theirs = [x for x in t_new if (x.title, tuple(x.lines)) not in ours]
    result.notes.append(f"bindings recorded on both sides: their {len(theirs)} block(s) "
                        "follow ours")
    return _lines(b, [], o_new + theirs)


CLOSING = ("facts resolved", "decisions", "out of scope", "domain language",
           "frontier after round")


def _key(line: str) -> str:
    return line[2:].partition(":")[0].strip().lower() if line.startswith("- ") else ""


def _closing(line: str) -> bool:
    """A line mdgrill writes when it closes a round: the frontier, or a closing key's `none`."""
    key = _key(line)
    value = line.partition(":")[2].strip().lower()
    return key == "frontier after round" or (key in CLOSING and value == "none")


def _text_before_blocks(prog: Progress) -> bool:
    lines = section_lines(prog)
    blocks = log_blocks(prog)
    head = lines[:blocks[0].start] if blocks else lines
    return any(line.strip() for line in head)


def _renumber(before: list[LogBlock], theirs: list[LogBlock], base: list[LogBlock],
              ) -> list[LogBlock]:
    """Their new rounds numbered on from ours (their round N becomes ours' last + N - the
    base's last, per phase)."""
    out = []
    for block in theirs:
        _, phase, number = _kind(block)
        shift = _last_round(before, phase) - _last_round(base, phase)
        if number is None or shift == 0:
            out.append(block)
            continue
        new = f"Grill - Round {number + shift}"
        heading = _ROUND_NUMBER.sub(new, block.lines[0], 1)
        title = _ROUND_NUMBER.sub(new, block.title, 1)
        out.append(LogBlock(title, [heading, *block.lines[1:]], block.line, block.start))
    return out


def _lines(base: list[LogBlock], ext: list[str], new: list[LogBlock]) -> list[str]:
    out: list[str] = []
    for i, block in enumerate(base):
        if out:
            out.append("")
        out.extend(block.lines + (ext if i == len(base) - 1 else []))
    for block in new:
        if out:
            out.append("")
        out.extend(block.lines)
    return out


def _conflicts(o_ext: list[str], o_new: list[LogBlock], t_ext: list[str],
               t_new: list[LogBlock], result: Merged) -> None:
    """Decisions the two sides answered differently (each side's answer line)."""
    ours = _answers(o_ext + [line for b in o_new for line in b.lines])
    theirs = _answers(t_ext + [line for b in t_new for line in b.lines])
    for node_id, (their_line, _) in theirs.items():
        mine = ours.get(node_id)
        if mine is None or _answer_of(mine[0]) == _answer_of(their_line):
            continue
        result.conflicts.append((node_id, _answer_of(mine[0]), _answer_of(their_line)))
        result.marks.append((mine[0], their_line))


def _with_markers(text: str, marks: list[tuple[str, str]]) -> str:
    """Standard conflict markers around the two answers of each conflicting decision, where
    theirs stands (ours stays in its own round as well): what a person resolves."""
    nl = "\r\n" if "\r\n" in text else "\n"
    for mine, theirs in marks:
        at = text.rfind(nl + theirs + nl)
        if at < 0:
            continue
        block = nl.join(["<<<<<<< ours", mine, "=======", theirs, ">>>>>>> theirs"])
        text = text[:at + len(nl)] + block + text[at + len(nl) + len(theirs):]
    return text


def _answer_of(line: str) -> str:
    pair = split_decision(line[2:].partition(":")[2].strip())
    return pair[1] if pair else line


def _record(b_iv: object, o_iv: object, t_iv: object, t_new: list[LogBlock],
            lines: list[str]) -> dict[str, object]:
    """The record after both sides recorded rounds of the same interview."""
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
    if t_new:
        _, _, number = _kind(t_new[-1])
        record.update(round=number, asked=t_iv.get("asked"),
                      round_frontier=t_iv.get("round_frontier"),
                      pending=[i for i in t_iv.get("pending") or [] if i not in answered])
    else:
        # the same open round on both sides (or ours went on): what either answered is done
        record["pending"] = [i for i in o_iv.get("pending") or [] if i not in answered]
    return record


def _section_edit(prog: Progress, key: str, lines: list[str]) -> Edit:
    sec = prog.sections[key]
    end = min(sec.end, len(prog.lines))
    tail = [""] if end < len(prog.lines) else []
    return Edit(sec.heading_line + 1, end, ["", *lines, *tail])


def resolution(merged: Merged, worktree: str, path: str) -> str | None:
    """`worktree` resealed, when it is `merged.text` with each conflict's markers replaced by
    one of its two answers (the person chose); None when it is anything else."""
    if merged.text is None or not merged.marks:
        return None
    pattern = re.escape(merged.text)
    for mine, theirs in merged.marks:
        block = re.escape("\n".join(["<<<<<<< ours", mine, "=======", theirs,
                                     ">>>>>>> theirs"]))
        pattern = pattern.replace(block, f"(?:{re.escape(mine)}|{re.escape(theirs)})", 1)
    if re.fullmatch(pattern, worktree.replace("\r\n", "\n")) is None:
        return None
    prog = Progress(TextFile(worktree), path)
    change = Change()
    change.updates["log"] = {"blocks": len(prog.blocks), "sha256": log_digest(prog.log_text())}
    return apply_change(prog, change)

"""What history says (pure): blocks added between two versions, and edits to recorded ones.

`verify` walks every version of a `.progress.md`. Parsing each version in full would cost
O(file size) in Python per commit (a 1,000-commit spec is ~1 MB at its end), so the walk first
tries a byte-level proof that a version only appended to the log: the old log section (from
its heading to the end of the file) reappears byte for byte in the new version, nothing in
front of it can hide that heading (no fence or comment opener, no second log heading; only the
region that changed is searched, the rest was searched in an earlier version), and the bytes
appended after it start no new `#`/`##` section. Any doubt falls back to the full parse, which
is also what reports a problem.
"""

from __future__ import annotations

import re
from collections import Counter

from mdgrill.core.hints import spec_arg
from mdgrill.diagnostics import Diagnostic, error, warning
from mdgrill.errors import MdgrillError
from mdgrill.formats.progress import LOG, Progress, normalize_log, read_progress
from mdgrill.model.tree import split_decision

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

# Substrings that could make a heading further down not a heading (fence and comment openers)
# or make another section the log (a second log heading). Searched for as plain bytes, so a
# hit is only a reason to parse the version in full, never a verdict.
_OPENERS = (b"```", b"~~~", b"<!--")
_LOG_WORDS = LOG.encode("ascii")
_REACH = max(len(_LOG_WORDS), *(len(o) for o in _OPENERS)) - 1
_FM_CLOSE = rb"\n(?:---|\.\.\.)[ \t\f\v\r]*\n"
_NEW_SECTION = rb"\n {0,3}#{1,2}(?:[ \t\r\n]|\Z)"


class LogVersion:
    """One version of a `.progress.md` log: its normalized text and its blocks."""

    __slots__ = ("text", "blocks", "lines", "ok", "problem")

    def __init__(self, text: str, blocks: list[tuple[str, int, str]], ok: bool,
                 problem: MdgrillError | None = None) -> None:
        self.text = text
        self.blocks = blocks  # (heading title, 1-based line in that version, block text)
        self.ok = ok
        self.problem = problem
        self.lines = text.split("\n") if text else []


def log_version(data: bytes, path: str) -> LogVersion:
    """The log of one version; a version that does not parse has an empty log (ok=False)."""
    return _parsed(data, path)[0]


def _parsed(data: bytes, path: str) -> tuple[LogVersion, Progress | None]:
    try:
        prog = read_progress(data, path)
        return LogVersion(prog.log_text(), _block_texts(prog), True), prog
    except MdgrillError as exc:
        return LogVersion("", [], False, exc), None
    except (ValueError, RecursionError) as exc:  # a defect of a parser: report, never crash
        return LogVersion("", [], False, MdgrillError("MALFORMED_FILE", str(exc))), None


def _block_texts(prog: Progress) -> list[tuple[str, int, str]]:
    lines = prog.lines
    out = []
    for block in prog.blocks:
        text = normalize_log("".join(lines[block.line:block.end]))
        out.append((block.title, block.line + 1, text))
    return out


def first_broken_block(old: LogVersion, new: LogVersion) -> tuple[str, int, str] | None:
    """The first recorded block of `old` that `new` changed or removed (None: pure appends)."""
    # whole lines appended: a recorded last line extended in place (`- Decisions: D2 -> no`
    # grown to `… -> no, delete it all`) is an edit (the normalized log ends without a LF)
    if not old.text or new.text == old.text or new.text.startswith(old.text + "\n"):
        return None
    new_texts = [b[2] for b in new.blocks]
    for i, block in enumerate(old.blocks):
        if i >= len(new_texts):
            return block
        last_old = i == len(old.blocks) - 1
        if new_texts[i] != block[2] and not (last_old and new_texts[i].startswith(block[2])):
            return block
    return old.blocks[-1] if old.blocks else ("Interview Responses", 1, old.text)


def inserted_block(old: LogVersion, new: LogVersion) -> tuple[str, int, str] | None:
    """A block of `new` placed before one `old` already had, when every old block survives."""
    j = 0
    first_extra: tuple[str, int, str] | None = None
    for block in new.blocks:
        if j < len(old.blocks) and block[2] == old.blocks[j][2]:
            if first_extra is not None:
                return first_extra
            j += 1
        elif first_extra is None and j < len(old.blocks):
            first_extra = block
    return None


def added_blocks(old: LogVersion, new: LogVersion) -> list[tuple[str, str]]:
    """(title, text) of the blocks `new` has beyond `old` (a grown last block counts too)."""
    added: list[tuple[str, str]] = []
    old_count = len(old.blocks)
    for i, (title, _, text) in enumerate(new.blocks):
        if i < old_count:
            if i == old_count - 1 and text != old.blocks[i][2]:
                added.append((title + " (continued)", text))
            continue
        added.append((title, text))
    return added


# --------------------------------------------------------------------------- the fast walk

class Episode:
    """A recorded block edited by a commit: the last good version before it, and where the
    error stands in the diagnostics (a later commit that puts the blocks back closes it)."""

    __slots__ = ("good", "good_sha", "edit_sha", "index")

    def __init__(self, good: _Snapshot, good_sha: str, edit_sha: str, index: int) -> None:
        self.good = good
        self.good_sha = good_sha
        self.edit_sha = edit_sha
        self.index = index


class _Snapshot:
    """The last good version as the byte-level check needs it."""

    __slots__ = ("data", "head", "fm_end", "parsed", "episode")

    def __init__(self, data: bytes, head: int | None, fm_end: int,
                 parsed: LogVersion | None) -> None:
        self.episode: Episode | None = None  # the edit this version carries, not yet undone
        self.data = data
        # Byte offset of the log heading when the log runs to the end of the file and no
        # opener or other log heading comes before it; None: only a full parse will do.
        self.head = head
        self.fm_end = fm_end
        self.parsed = parsed

    def full(self, path: str) -> LogVersion:
        if self.parsed is None:
            self.parsed = log_version(self.data, path)
        return self.parsed


def _fm_end(data: bytes) -> int:
    """Where the front matter ends by the `split` rule (0: none found; only a hint)."""
    if not data.startswith(b"---"):
        return 0
    m = re.compile(_FM_CLOSE).search(data, 3)
    return m.end() if m else 0


def _clean(region: bytes) -> bool:
    return not any(o in region for o in _OPENERS) and _LOG_WORDS not in region.lower()


def _snapshot_of(data: bytes, prog: Progress | None, parsed: LogVersion) -> _Snapshot:
    """A snapshot from a full parse: find the log heading's byte offset if the fast path fits."""
    head: int | None = None
    if prog is not None:
        span = prog.log_span()
        sec = prog.sections.get(LOG)
        text = prog.tf.text
        if span is not None and sec is not None and not prog.tf.bom and \
                text[span[1]:].strip() == "" and span[1] == len(text):
            heading = next(h for h in prog.headings if h.line == sec.heading_line)
            offset = len(text[:heading.offset].encode("utf-8"))
            if _clean(data[:offset]):
                head = offset
    return _Snapshot(data, head, _fm_end(data), parsed)


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix (slices compare with memcmp; memoryviews go item by item)."""
    hi = min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    lo = 0  # a[:lo] == b[:lo] holds; a[:hi] == b[:hi] does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    hi = min(len(a), len(b), limit)
    la, lb = len(a), len(b)
    if a[la - hi:] == b[lb - hi:]:
        return hi
    lo = 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[la - mid:la - lo] == b[lb - mid:lb - lo]:
            lo = mid
        else:
            hi = mid
    return lo


def _fast_append(old: _Snapshot, new: bytes) -> _Snapshot | None:
    """`new` as a snapshot when it provably only appended to `old`'s log, else None."""
    if old.head is None or new.startswith(b"\xef\xbb\xbf") or b"\x00" in new:
        return None
    if not old.data.endswith(b"\n"):
        return None  # bytes after it could extend its last line: the full parse decides
    data = old.data
    eol = data.find(b"\n", old.head)
    if eol < 0:
        return None
    heading = data[old.head - 1:eol + 1] if old.head else b""  # "\n## Interview Responses\n"
    if not heading:
        return None
    fm_end = _fm_end(new)
    if data.startswith(b"---") and (fm_end == 0) != (old.fm_end == 0):
        return None
    found = new.find(heading, max(fm_end - 1, 0))
    if found < 0:
        return None
    head = found + 1
    tail = len(data) - old.head
    if not new.startswith(data[old.head:], head):
        return None
    after = head + tail
    if re.compile(_NEW_SECTION).search(new, max(after - 1, head)):
        return None
    # new[:head] must be clean: its front matter is searched in full; the body only where it
    # differs from old's body, which was clean (a hit may straddle a boundary: hence _REACH).
    if not _clean(new[:fm_end]):
        return None
    old_body = data[old.fm_end:old.head]
    new_body = new[fm_end:head]
    prefix = _common_prefix(old_body, new_body)
    suffix = _common_suffix(old_body, new_body, min(len(old_body), len(new_body)) - prefix)
    lo = max(prefix - _REACH, 0)
    hi = min(len(new_body) - suffix + _REACH, len(new_body))
    if lo < hi and not _clean(new_body[lo:hi]):
        return None
    try:
        new.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return _Snapshot(new, head, fm_end, None)


def verify_log_history(versions: Iterable[tuple[str, bytes]], path: str,
                       stats: dict[str, int] | None = None,
                       parents: dict[str, list[str]] | None = None) -> list[Diagnostic]:
    """Diagnostics for every version that changed, removed or inserted before a recorded block.

    `versions` are (commit, file bytes; b"" when deleted), oldest first, parents before
    children. With `parents` (commit -> the commits before it that touched the file) each
    version is held to its own parents, so two branches' commits are never compared with each
    other, and a merge commit passes when its log is the union of its parents' logs
    (`merge_lost_block`). Without, each version is held to the one before it. A version that
    does not parse is reported as a warning and skipped: its children are compared with the
    last good one, so an edit hidden behind a broken commit is still found.
    """
    found: list[Diagnostic] = []
    kept: dict[str, _Snapshot] = {}  # the versions a later one still has to be held to
    waiting: dict[str, int] | None = None  # counted once the history has been read
    prev_sha = ""
    fast = full = 0
    for sha, data in versions:
        if waiting is None:
            waiting = _children(parents) if parents is not None else {}
        before = parents.get(sha, []) if parents is not None else [prev_sha] if prev_sha else []
        olds = [(p, kept[p]) for p in before if p in kept]
        snapshot: _Snapshot | None = None
        if len(olds) == 1:
            snapshot = _fast_append(olds[0][1], data)
        if snapshot is not None:
            snapshot.episode = olds[0][1].episode  # appending does not undo an edit
            fast += 1
        else:
            full += 1
            parsed, prog = _parsed(data, path)
            if not parsed.ok:
                problem = parsed.problem
                why = problem.message if problem is not None else "it does not parse"
                found.append(warning(path, (problem.line if problem else None) or 1,
                                     "MALFORMED_VERSION",
                                     f"the version of commit {sha[:10]} cannot be read ({why}); "
                                     "its log was skipped and the next version is compared with "
                                     "the last one that could be read"))
                if parents is None:
                    continue  # the next version is held to the last good one
                snapshot = olds[0][1] if olds else None  # its children see the last good one
            else:
                episode = _held_to(olds, parsed, path, sha, data, found)
                snapshot = _snapshot_of(data, prog, parsed)
                snapshot.episode = episode
        if parents is None:
            kept = {sha: snapshot} if snapshot is not None else kept
            prev_sha = sha if snapshot is not None else prev_sha
            continue
        for p in before:  # a version no later one is held to is let go
            waiting[p] = waiting.get(p, 1) - 1
            if waiting[p] <= 0:
                kept.pop(p, None)
        if snapshot is not None and waiting.get(sha, 0) > 0:
            kept[sha] = snapshot
    if stats is not None:
        stats["fast"] = stats.get("fast", 0) + fast
        stats["full"] = stats.get("full", 0) + full
    return found


def _held_to(olds: list[tuple[str, _Snapshot]], parsed: LogVersion, path: str, sha: str,
             data: bytes, found: list[Diagnostic]) -> Episode | None:
    """Hold a version to its parents, adding what it broke to `found`; the edit it carries on
    (or None: nothing, or a commit that put the blocks back, which turns the edit's error
    into a ROUND_RESTORED warning)."""
    if len(olds) > 1:
        found.extend(_merge_problems(olds, parsed, path, sha))
        return None
    if not olds:
        return None
    parent_sha, parent = olds[0]
    episode = parent.episode
    if episode is not None and \
            _compare(episode.good.full(path), parsed, path, sha, "", data) is None:
        found[episode.index] = _restored(found[episode.index], episode, sha)
        return None  # the blocks are back as they were: the episode is closed
    problem = _compare(parent.full(path), parsed, path, sha, parent_sha, data)
    if problem is not None:
        found.append(problem)
        if episode is None:
            episode = Episode(parent, parent_sha, sha, len(found) - 1)
    return episode


def _restored(edit: Diagnostic, episode: Episode, sha: str) -> Diagnostic:
    """The edit's error, once a later commit put the recorded blocks back byte for byte."""
    return warning(edit.path, edit.line, "ROUND_RESTORED",
                   f"commit {episode.edit_sha[:10]} edited a recorded block (as of "
                   f"{episode.good_sha[:10]}) and commit {sha[:10]} put the blocks back byte "
                   f"for byte: the log is whole again (was: {edit.message})")


def _children(parents: dict[str, list[str]]) -> dict[str, int]:
    count: dict[str, int] = {}
    for before in parents.values():
        for p in before:
            count[p] = count.get(p, 0) + 1
    return count


_ROUND_OF = re.compile(r"(Grill - Round )[0-9]+")


def merge_lost_block(parent: LogVersion, merged: LogVersion,
                     others: tuple[LogVersion, ...] = ()) -> tuple[str, int] | None:
    """The first block of `parent` that a merge commit's log does not hold, or None.

    A merge keeps each side's blocks, renumbers the rounds of the side merged in, and may add
    to a block the lines the other side appended to it: a parent's block is held when some
    block of the merge has its heading (round numbers aside) and every one of its lines. The
    one exception is a conflict resolved: a decision `parent` answered and one of the `others`
    (the merge's other parents) answered differently may lose `parent`'s answer (and its
    `By:`), when the merge answers it exactly once, with an answer line one parent wrote.
    """
    pool: dict[str, list[Counter[str]]] = {}
    for title, _, text in merged.blocks:
        pool.setdefault(_ROUND_OF.sub(r"\1", title), []).append(Counter(text.split("\n")[1:]))
    resolved = _resolved_conflicts(parent, merged, others)
    for title, line, text in parent.blocks:
        need = Counter(line for line in text.split("\n")[1:]
                       if _answered_id(line, _RESOLVABLE) not in resolved)
        if not any(_holds(have, need) for have in pool.get(_ROUND_OF.sub(r"\1", title), [])):
            return title, line
    return None


_ANSWER_KEYS = ("decisions", "facts resolved", "out of scope")
_RESOLVABLE = (*_ANSWER_KEYS, "by")


def _answered_id(line: str, keys: tuple[str, ...]) -> str | None:
    """The decision a `- Key: ID -> text` line names, for one of `keys`; else None."""
    key, sep, value = line[2:].partition(":") if line.startswith("- ") else ("", "", "")
    pair = split_decision(value.strip()) if sep and key.strip().lower() in keys else None
    return pair[0] if pair is not None else None


def _answer_lines(log: LogVersion) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for line in log.lines:
        node_id = _answered_id(line, _ANSWER_KEYS)
        if node_id is not None:
            out.setdefault(node_id, set()).add(line)
    return out


def _resolved_conflicts(parent: LogVersion, merged: LogVersion,
                        others: tuple[LogVersion, ...]) -> set[str]:
    """The decisions `parent` and another parent answered differently that the merge
    answers once, with one parent's answer line (a conflict a person resolved)."""
    if not others:
        return set()
    mine, result = _answer_lines(parent), _answer_lines(merged)
    theirs: dict[str, set[str]] = {}
    for other in others:
        for node_id, lines in _answer_lines(other).items():
            theirs.setdefault(node_id, set()).update(lines)
    out = set()
    for node_id, lines in mine.items():
        kept = result.get(node_id, set())
        if theirs.get(node_id, lines) - lines and len(kept) == 1 and \
                kept <= lines | theirs[node_id] and sum(
                    line in kept for line in merged.lines) == 1:
            out.add(node_id)
    return out


_CLOSING_LINE = re.compile(r"- (Frontier after round|(?:Facts resolved|Decisions|Out of scope|"
                           r"Domain language)(?=: none\s*$)):")


def _holds(have: Counter[str], need: Counter[str]) -> bool:
    """Whether a merged block holds a parent's: every line, except the lines mdgrill wrote
    when that side closed a round both sides closed (the block has its own line of that
    key: the merge kept ours)."""
    keys = {m.group(1) for line in have if (m := _CLOSING_LINE.match(line))}
    for line in need - have:
        m = _CLOSING_LINE.match(line)
        if m is None or m.group(1) not in keys:
            return False
    return True


def _merge_problems(olds: list[tuple[str, _Snapshot]], merged: LogVersion, path: str,
                    sha: str) -> list[Diagnostic]:
    out = []
    logs = [snapshot.full(path) for _, snapshot in olds]
    for i, (parent_sha, _) in enumerate(olds):
        lost = merge_lost_block(logs[i], merged, tuple(logs[:i] + logs[i + 1:]))
        if lost is not None:
            title, line = lost
            out.append(error(path, 1, "ROUND_EDITED",
                             f"merge commit {sha[:10]} lost or changed the recorded block "
                             f"`{title}` of its parent {parent_sha[:10]} (line {line} there): "
                             "a merge keeps both sides' blocks; redo it with `mdgrill merge` "
                             "or the merge driver (`mdgrill install-merge-driver`)"))
    return out


def _compare(old: LogVersion, new: LogVersion, path: str, sha: str, prev_sha: str,
             data: bytes) -> Diagnostic | None:
    inserted = inserted_block(old, new)
    if inserted is not None and first_broken_block(old, new) is not None:
        title, line, _ = inserted
        return error(path, line, "ROUND_INSERTED",
                     f"commit {sha[:10]} inserted the block `{title}` before blocks recorded "
                     f"earlier (as of {prev_sha[:10]}): new blocks go at the end of "
                     "`## Interview Responses`; move it there")
    broken = first_broken_block(old, new)
    if broken is None:
        return None
    title, line, _ = broken
    if not data:
        return error(path, line, "ROUND_EDITED",
                     f"commit {sha[:10]} deleted {path}, and with it the recorded block "
                     f"`{title}` (line {line} as of {prev_sha[:10]}): restore the file from "
                     f"{prev_sha[:10]}")
    same = next((b for b in new.blocks if b[0] == title), None)
    where = same[1] if same is not None else line
    return error(path, where, "ROUND_EDITED",
                 f"commit {sha[:10]} changed or removed the recorded block `{title}` (line "
                 f"{line} as of {prev_sha[:10]}): a recorded block is never rewritten; put it "
                 f"back (`git revert {sha[:10]}`, or check the file out of {prev_sha[:10]} and "
                 "commit: verify then reports the edit as restored) and record the correction "
                 "as a new round")


# --------------------------------------------------------------------------- glossaries

def glossary_terms(data: bytes | None, path: str) -> dict[str, tuple[str, int]] | None:
    """Term name -> (definition, 1-based line) of one CONTEXT.md version; None if unreadable."""
    if data is None:
        return {}
    from mdgrill.formats.glossary import parse_glossary
    from mdgrill.formats.textfile import decode

    try:
        glossary = parse_glossary(decode(data, path), path)
    except MdgrillError:
        return None
    terms: dict[str, tuple[str, int]] = {}
    for term in glossary.terms:
        for name in term.names:
            terms.setdefault(name, (term.definition, term.line))
    return terms


def removal_notes(prog: Progress) -> set[str]:
    """Case-folded terms a round records as removed (`- Domain language: Term -> (removed)`)."""
    names: set[str] = set()
    for block in prog.blocks:
        for entry in block.get("Domain language"):
            term, arrow, what = entry.value.partition("->")
            if arrow and what.strip().lower() in ("(removed)", "removed"):
                names.add(term.strip().casefold())
    return names


def verify_glossary_history(versions: Iterable[tuple[str, bytes]], path: str,
                            removed: set[str],
                            parents: dict[str, list[str]] | None = None) -> list[Diagnostic]:
    """An error for every term a version dropped that no round records as removed. With
    `parents`, a version is held to its own parents (a merge to all of them), not to
    whatever commit came before it on another branch."""
    found: list[Diagnostic] = []
    kept: dict[str, dict[str, tuple[str, int]]] = {}
    prev = ""
    for sha, data in versions:
        now = glossary_terms(data, path)
        if now is None:
            found.append(warning(path, 1, "MALFORMED_VERSION",
                                 f"the version of commit {sha[:10]} cannot be read; the next "
                                 "version is compared with the last one that could be read"))
            if parents is not None:  # its children are held to its last good parent
                before_shas = [p for p in parents.get(sha, []) if p in kept]
                if before_shas:
                    kept[sha] = kept[before_shas[0]]
            continue
        before_shas = parents.get(sha, []) if parents is not None else [prev] if prev else []
        before: dict[str, tuple[str, int]] = {}
        for p in before_shas:
            for name, value in kept.get(p, {}).items():
                before.setdefault(name, value)
        folded = {name.casefold() for name in now}
        for name, (_, line) in before.items():
            if name.casefold() not in folded and name.casefold() not in removed:
                found.append(error(
                    path, line, "TERM_REMOVED",
                    f"commit {sha[:10]} removed the glossary term **{name}** (line {line} "
                    "before it) without a round that says so: put it back, or record "
                    f"`- Domain language: {name} -> (removed)` in a round"))
        kept[sha] = now
        if parents is None:
            kept = {sha: now}
        prev = sha
    return found


# The block each approval transition writes in the same commit (`Mdgrill-Transition` value)
LOGGED_BY_TRANSITION = {"approve": "confirmed", "skip": "confirmed", "bypass": "bypassed"}


def approval_logged(prog: Progress, kind: str, interview_id: object, digest: object) -> bool:
    """Whether the log holds a `kind` block (confirmed/bypassed) of this interview and digest."""
    return any(b.kind == kind and b.first("Interview") == interview_id
               and b.first("Context digest") == digest for b in prog.blocks)


def unlogged_approval(sha: str, trailers: dict[str, str], data: bytes | None,
                      path: str) -> Diagnostic | None:
    """An error when an approval commit's own `.progress.md` does not log its transition.

    `mdgrill confirm` (or `begin-interview` in quick mode) writes the `Confirmed`/`Bypassed`
    block and commits it with the trailers in one step, so a trailer commit without that
    block was written by hand, even when a later commit appends a block to make HEAD look
    approved.
    """
    kind = LOGGED_BY_TRANSITION.get(trailers.get("Mdgrill-Transition", ""))
    if kind is None:
        return None
    interview, digest = trailers.get("Mdgrill-Interview"), trailers.get("Mdgrill-Context-Digest")
    why = f"it has no {path}"
    if data is not None:
        try:
            prog = read_progress(data, path)
        except MdgrillError:
            return None  # a version that cannot be read is reported by the log walk
        if approval_logged(prog, kind, interview, digest):
            return None
        why = (f"its {path} logs no `{kind.title()}` block for interview {interview} with the "
               f"context digest {str(digest)[:12]}…")
    return error(path, 1, "APPROVAL_NOT_RECORDED",
                 f"commit {sha[:10]} carries approval trailers, but {why}: the trailers were "
                 "typed by hand, not written by `mdgrill confirm`, and a block appended later "
                 "does not make it an approval. Revert the forged commits and approve with "
                 "`mdgrill confirm`")


def approval_gap(committed: Progress, current: Progress,
                 iv: dict[str, object]) -> tuple[str, str] | None:
    """Why an approval commit's `.progress.md` does not cover the current one, or None.

    The commit must log the transition itself (a trailer typed by hand over a hand-edited
    record has no Confirmed/Bypassed block for it), and the log now must be that log plus
    appended lines: a recorded block edited after approval and resealed by hand shows here.
    """
    want = "bypassed" if iv.get("status") == "bypassed_quick" else "confirmed"
    if not approval_logged(committed, want, iv.get("id"), iv.get("context_digest")):
        return ("APPROVAL_NOT_RECORDED",
                f"its log has no `{want.title()}` block for interview {iv.get('id')} with this "
                "context digest, so the approval was not recorded by mdgrill")
    old, new = committed.log_text(), current.log_text()
    if new != old and not new.startswith(old + "\n"):
        return ("ROUND_EDITED",
                "the Interview Responses recorded in it were edited or removed since: restore "
                "them from that commit (`mdgrill restore`, or git); a correction is a new round")
    return None


_PHASE_LINE = re.compile(rb"^phase:[ \t]*([A-Za-z]+)[ \t]*\r?$", re.M)
_ARTIFACT_LINE = re.compile(rb"^artifact:", re.M)
_PHASE_ORDER = ("start", "research", "requirements", "design", "tasks")


class PhaseWatch:
    """Passes versions through and notes each `phase:` that moved forward without an
    approve-artifact commit, once the spec uses the artifact gate, and each that moved back
    without a reopen commit. With `parents` (as `verify_log_history` takes them) a version is
    held to its own parents, and a merge that keeps one parent's phase moved nothing."""

    def __init__(self, versions: Iterable[tuple[str, bytes]], path: str,
                 approvals: set[str], reopens: set[str] | None = None,
                 parents: dict[str, list[str]] | None = None) -> None:
        self.versions = versions
        self.path = path
        self.approvals = approvals
        self.reopens = reopens or set()
        self.parents = parents
        self.diagnostics: list[Diagnostic] = []

    def __iter__(self) -> Iterator[tuple[str, bytes]]:
        last: str | None = None
        phase_of: dict[str, str | None] = {}
        for sha, data in self.versions:
            head = data[:_fm_end(data)]
            found = _PHASE_LINE.search(head)
            phase = found.group(1).decode("ascii") if found else None
            if self.parents is None:
                befores = [last]
            else:
                befores = [phase_of.get(p) for p in self.parents.get(sha, [])] or [None]
            # a merge that kept a parent's phase moved nothing
            before = phase if phase in befores else next((b for b in befores if b), None)
            if before in _PHASE_ORDER and phase in _PHASE_ORDER and \
                    _PHASE_ORDER.index(str(phase)) > _PHASE_ORDER.index(str(before)) and \
                    _ARTIFACT_LINE.search(head) and sha not in self.approvals:
                line = head.count(b"\n", 0, found.start()) + 1 if found else 1
                self.diagnostics.append(error(
                    self.path, line, "PHASE_NOT_APPROVED",
                    f"commit {sha[:10]} moved `phase:` from {before} to {phase} without an "
                    "approve-artifact commit: a phase advances only by `mdgrill "
                    "approve-artifact`"))
            elif before in _PHASE_ORDER and phase in _PHASE_ORDER and \
                    _PHASE_ORDER.index(str(phase)) < _PHASE_ORDER.index(str(before)) and \
                    sha not in self.reopens:
                line = head.count(b"\n", 0, found.start()) + 1 if found else 1
                self.diagnostics.append(error(
                    self.path, line, "PHASE_REGRESSION",
                    f"commit {sha[:10]} moved `phase:` back from {before} to {phase} without "
                    f"a reopen commit: going back is `mdgrill reopen {spec_arg(self.path)} "
                    f"--phase {phase} --reason TEXT`, which records what it sets aside"))
            last = phase if phase is not None else last
            phase_of[sha] = phase if phase is not None else before
            yield sha, data

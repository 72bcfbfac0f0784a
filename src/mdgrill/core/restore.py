"""Put back the recorded log blocks a bad edit lost (pure: texts in, text and diff out).

The log is append-only, so the last good copy's `## Interview Responses` is a prefix of every
later correct log. A restore keeps the current file as it is except for that section, which
becomes the good log plus the blocks appended after it (current blocks the good copy does not
know). Only the front matter's `log:` digest is updated, and only when it no longer matches;
and when the current log is an earlier state of the good one (a stale save), the interview
record the good copy kept beside the lost blocks comes back with them (the same interview, on
the same context), so the record does not lose what those blocks asked (ASKED_WITHOUT_OUTCOME,
issue 31.5).
"""

from __future__ import annotations

from mdgrill.errors import InputError
from mdgrill.formats.progress import LOG, Change, Progress, apply_change, log_digest
from mdgrill.formats.textfile import Edit, TextFile, apply_edits, content


class LogBlock:
    """One block of the log as text: its heading title, its lines (LF, no trailing blanks)."""

    __slots__ = ("title", "lines", "line", "start")

    def __init__(self, title: str, lines: list[str], line: int, start: int) -> None:
        self.title = title
        self.lines = lines
        self.line = line  # heading line in the file, 0-based
        self.start = start  # index of the heading within the section's content lines

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


class Loss:
    """A recorded block that is gone or changed: what it had, and what stands there now."""

    __slots__ = ("title", "old_text", "new_text", "line")

    def __init__(self, title: str, old_text: str, new_text: str | None, line: int) -> None:
        self.title = title
        self.old_text = old_text
        self.new_text = new_text  # None when the block was deleted
        self.line = line  # 0-based line in the current file (the block, or the log heading)

    @property
    def deleted(self) -> bool:
        return self.new_text is None


class Match:
    """How the current log relates to the good one."""

    __slots__ = ("losses", "appended", "extended")

    def __init__(self) -> None:
        self.losses: list[Loss] = []
        self.appended: list[LogBlock] = []  # current blocks the good copy does not have
        self.extended: LogBlock | None = None  # the good last block, grown by appended lines


class Restored:
    """The restored text, its diff against the current one, and what was put back."""

    __slots__ = ("text", "diff", "restored", "kept", "digest_updated", "changed")

    def __init__(self, text: str, diff: str, restored: list[str], kept: list[str],
                 digest_updated: bool) -> None:
        self.text = text
        self.diff = diff
        self.restored = restored  # titles of the blocks put back
        self.kept = kept  # titles of blocks added after the good copy, kept in place
        self.digest_updated = digest_updated
        self.changed = bool(diff)


def section_lines(prog: Progress) -> list[str]:
    """The content lines of `## Interview Responses` (no line ends), or [] without one."""
    sec = prog.sections.get(LOG)
    if sec is None:
        return []
    lines = prog.lines
    return [content(line) for line in lines[sec.heading_line + 1:min(sec.end, len(lines))]]


def log_blocks(prog: Progress) -> list[LogBlock]:
    """The log's blocks with their text (cheap: headings only, no bullet parsing)."""
    sec = prog.sections.get(LOG)
    if sec is None:
        return []
    body = section_lines(prog)
    base = sec.heading_line + 1
    out: list[LogBlock] = []
    for block in prog.blocks:
        lo, hi = block.line - base, block.end - base
        lines = body[lo:hi]
        while lines and not lines[-1].strip():
            lines.pop()
        out.append(LogBlock(block.title, lines, block.line, lo))
    return out


def match_logs(good: list[LogBlock], current: list[LogBlock], log_line: int) -> Match:
    """Pair good blocks with current ones: equal, edited, deleted, or new in the current."""
    result = Match()
    free: dict[tuple[str, str], list[int]] = {}
    for gi, block in enumerate(good):
        free.setdefault((block.title, block.text), []).append(gi)
    paired: dict[int, LogBlock] = {}
    leftover: list[LogBlock] = []
    for block in current:
        slots = free.get((block.title, block.text))
        if slots:
            paired[slots.pop(0)] = block
        else:
            leftover.append(block)
    last = len(good) - 1
    losses: list[tuple[int, Loss]] = []
    for block in leftover:
        found = next((i for i, g in enumerate(good) if i not in paired and g.title == block.title),
                     None)
        if found is None:  # a truncated remnant of a recorded block (its heading cut short)
            found = next((i for i, g in enumerate(good)
                          if i not in paired and g.text.startswith(block.text)), None)
        if found is None:
            result.appended.append(block)
            continue
        gi = found
        paired[gi] = block
        old = good[gi]
        if gi == last and block.lines[:len(old.lines)] == old.lines:
            result.extended = block  # lines appended to the open round: nothing was lost
            continue
        losses.append((gi, Loss(old.title, old.text, block.text, block.line)))
    for gi, old in enumerate(good):
        if gi not in paired:
            losses.append((gi, Loss(old.title, old.text, None, log_line)))
    result.losses = [loss for _, loss in sorted(losses, key=lambda pair: pair[0])]
    return result


def lost_blocks(good: Progress, current: Progress) -> list[Loss]:
    """Recorded blocks of `good` that `current` changed or dropped."""
    sec = current.sections.get(LOG)
    log_line = sec.heading_line if sec is not None else max(len(current.lines) - 1, 0)
    return match_logs(log_blocks(good), log_blocks(current), log_line).losses


def _parse(text: str, path: str) -> Progress | None:
    try:
        prog = Progress(TextFile(text), path)
    except InputError:
        return None
    return prog if prog.fm is not None else None


def restore(good_text: str, current_text: str, path: str) -> Restored:
    """The current text with the good copy's lost log blocks put back; diff for --dry-run."""
    good = _parse(good_text, path)
    if good is None:
        raise InputError("MALFORMED_FILE", f"the last good copy of {path} does not parse: "
                         "restore it from git instead")
    if not _log_ok(good):
        # A copy whose log does not match its own seal holds an edit itself (committed at
        # HEAD, say): resealing from it would launder that edit.
        raise InputError("ROUND_EDITED", f"the good copy of {path} is not good: its recorded "
                         "blocks do not match its own seal (the edit was committed?); put the "
                         "blocks back from the commit before the edit (`git revert` the edit, "
                         "or `git checkout <commit> -- <file>`), then commit")
    current = _parse(current_text, path)
    if current is None:
        if good_text.startswith(current_text):
            return _finish(current_text, good_text, path, [b.title for b in log_blocks(good)],
                           [], False)
        raise InputError("MALFORMED_FILE", f"{path}: the front matter is missing or malformed, "
                         "so the log cannot be put back into it: fix the front matter first "
                         "(or take the file from git)", path=path)
    cur_sec = current.sections.get(LOG)
    log_line = cur_sec.heading_line if cur_sec is not None else len(current.lines)
    match = match_logs(log_blocks(good), log_blocks(current), log_line)
    if not match.losses and _log_ok(current):
        return _finish(current_text, current_text, path, [], [], False)
    new_lines = _good_log(good, match.extended)
    for block in match.appended:
        new_lines.extend(["", *block.lines])
    text = _replace_log(current, new_lines)
    after = Progress(current.tf.with_text(text), path)
    updated = False
    change = Change()
    if not _log_ok(after):
        change.updates["log"] = {"blocks": len(after.blocks),
                                 "sha256": log_digest(after.log_text())}
    record = good.data.get("interview")
    if _stale_save(good, current) and _same_interview(record, current):
        change.updates["interview"] = record
    if change.updates:
        text = apply_change(after, change)
        updated = True
    return _finish(current_text, text, path, [loss.title for loss in match.losses],
                   [b.title for b in match.appended], updated)


def _stale_save(good: Progress, current: Progress) -> bool:
    """Whether the current log is an earlier state of the good one (a buffer saved from
    before mdgrill's write), not an edit: fewer blocks, each as the good copy has it."""
    return len(current.blocks) < len(good.blocks) and \
        good.log_text().startswith(current.log_text())


def _same_interview(record: object, current: Progress) -> bool:
    """Whether the good copy's interview record is the current one's, further on: the same
    ID, phase and context digest (a stale save took the record back with the log)."""
    now = current.data.get("interview")
    keys = ("id", "phase", "context_digest")
    return isinstance(record, dict) and isinstance(now, dict) and record != now and \
        all(record.get(k) == now.get(k) for k in keys)


def _log_ok(prog: Progress) -> bool:
    log = prog.data.get("log")
    if not isinstance(log, dict):
        return not prog.blocks
    return log_digest(prog.log_text()) == log.get("sha256")


def _good_log(good: Progress, extended: LogBlock | None) -> list[str]:
    body = section_lines(good)
    while body and not body[-1].strip():
        body.pop()
    if extended is not None:
        blocks = log_blocks(good)
        body = body[:blocks[-1].start] + extended.lines
    while body and not body[0].strip():
        body.pop(0)
    return body


def _replace_log(current: Progress, log: list[str]) -> str:
    tf = current.tf
    lines = tf.lines
    sec = current.sections.get(LOG)
    if sec is None:
        lead = [""] if lines and content(lines[-1]).strip() else []
        edit = Edit(len(lines), len(lines), [*lead, "## Interview Responses", "", *log])
        return apply_edits(tf, [edit]).text
    end = min(sec.end, len(lines))
    tail = [""] if end < len(lines) else []
    return apply_edits(tf, [Edit(sec.heading_line + 1, end, ["", *log, *tail])]).text


def _finish(old: str, new: str, path: str, restored: list[str], kept: list[str],
            updated: bool) -> Restored:
    import difflib

    diff = "".join(difflib.unified_diff(old.splitlines(keepends=True),
                                        new.splitlines(keepends=True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}"))
    return Restored(new, diff, restored, kept, updated)

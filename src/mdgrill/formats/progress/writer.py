"""Writing: a `Change` (front matter values, lines and blocks appended, nodes inserted)
applied so that every other byte stays as it was."""

from __future__ import annotations

from mdgrill.errors import InputError
from mdgrill.formats import frontmatter as frontmatter_io
from mdgrill.formats.progress.blocks import lf_line_ends, log_digest
from mdgrill.formats.progress.lines import LOG, TREE
from mdgrill.formats.progress.reader import Progress
from mdgrill.formats.schema import BLOCK_LISTS, TOP_KEYS
from mdgrill.formats.textfile import apply_splices

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False

# ---------------------------------------------------------------------------------------
# Writing


class Change:
    """What a command does to `.progress.md`: front matter updates and lines appended."""

    def __init__(self) -> None:
        self.updates: dict[str, object] = {}
        self.append_lines: list[str] = []  # to the last block of the log
        self.new_blocks: list[tuple[str, list[str]]] = []  # (heading, lines) after it
        self.insert_nodes: list[list[str]] = []  # design tree node blocks
        self.log_span_after: tuple[int, int] | None = None  # set by change_splices

    @property
    def touches_log(self) -> bool:
        return bool(self.append_lines or self.new_blocks)

    def block(self, heading: str, lines: list[str]) -> None:
        self.new_blocks.append((heading, lines))


if TYPE_CHECKING:
    from typing import Generic, NamedTuple, TypeVar

    R = TypeVar("R")

    class Transition(NamedTuple, Generic[R]):
        """What one pure step returns: the `Change` to write and its report `R` (the fields
        the operation's result starts from; the transaction adds `written`), a `TypedDict` of
        `core/machine/reports.py`. Every transition of the interview and artifact state
        machines, and every step a transaction runs, returns one."""

        change: Change
        report: R
else:
    # Python 3.10 has no generic NamedTuple, and typing's import would cost every verb 3 ms:
    # at run time the same two fields on a tuple, the report a plain dict (what its
    # TypedDict is at run time); type checkers read the class above.
    class Transition(tuple):
        """What one pure step returns: the `Change` to write and its report."""

        __slots__ = ()

        def __new__(cls, change, report):
            return tuple.__new__(cls, (change, report))

        @property
        def change(self):
            return self[0]

        @property
        def report(self):
            return self[1]


def with_record(prog: Progress, updates: dict[str, object]) -> str:
    """The file with `updates` merged into its front matter (created if it has none) and the
    log sealed as it stands: what an import writes.

    Keys not in `updates` (the user's own) keep their lines byte for byte, and the body is
    untouched; keys mdgrill does not define come after its own, in the order given.
    """
    data = dict(updates)
    data["log"] = {"blocks": len(prog.blocks), "sha256": log_digest(prog.log_text())}
    order = [*TOP_KEYS, *(key for key in data if key not in TOP_KEYS)]
    edits = frontmatter_io.splice(prog.tf, prog.fm, data, order, BLOCK_LISTS)
    nl = prog.tf.newline
    if prog.fm is None:
        head = nl.join(edits[0].new_lines) + nl
        return apply_splices(prog.tf.text, [(0, 0, head)])
    head = frontmatter_io.apply_head_edits(prog.fm, edits, nl)
    return apply_splices(prog.tf.text, [(0, prog.fm.end_offset, head)])


def apply_change(prog: Progress, change: Change) -> str:
    """The file's new text: every byte outside the change stays as it was."""
    return apply_splices(prog.tf.text, change_splices(prog, change))


def change_splices(prog: Progress, change: Change) -> list[tuple[int, int, str]]:
    """The character ranges of the file's text that the change replaces, and with what
    (`apply_change` makes the new text of them; a write streams them, `TextFile.spliced`).
    Sets `change.log_span_after`."""
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
            at = len(text)
            prefix = "" if not text or text.endswith("\n") else nl
            if text and not text.endswith(("\n\n", "\r\n\r\n")):
                prefix += nl
            new_text = prefix + "## Interview Responses" + nl + nl.join(added) + nl
            splices.append((at, at, new_text))
            digest = log_digest("\n".join(_drop_leading_blank(added)))
        else:
            start, end = span
            at = _end_of_content(text, start, end)
            lead = "" if at == 0 or text[at - 1] == "\n" else nl
            if at == start and start > 0 and text[start - 1] != "\n":
                lead = nl  # the section heading is the file's last line, without a line end
            insertion = lead + nl.join(added) + nl
            splices.append((at, at, insertion))
            old_end = end  # just after the old log's last non-space character
            while old_end > start and text[old_end - 1].isspace():
                old_end -= 1
            if old_end > start:
                # The old log is hashed already (load checked it): feed only what follows its
                # last character, normalized as normalize_log would (the old last line's
                # trailing spaces, kept now that it is no longer last, and the new lines).
                tail = text[old_end:at] + insertion + text[at:end]
                hasher = prog.log_hasher().copy()  # type: ignore[attr-defined]
                hasher.update(lf_line_ends(tail).rstrip().encode("utf-8"))
                digest = str(hasher.hexdigest())
            else:
                digest = log_digest("\n".join(added))
        updates["log"] = {"blocks": _block_count(prog) + len(change.new_blocks),
                          "sha256": digest}

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
    change.log_span_after = _shift_span(prog.log_span(), splices) if change.touches_log else None
    return splices


def _shift_span(span: tuple[int, int] | None,
                splices: list[tuple[int, int, str]]) -> tuple[int, int] | None:
    """Where the log's [start, end) lands after the splices (which never cut through it)."""
    if span is None:
        return None
    start, end = span
    new_start = start + sum(len(new) - (e - s) for s, e, new in splices if e <= start and s < start)
    new_end = end + sum(len(new) - (e - s) for s, e, new in splices if s <= end)
    return new_start, new_end


def _block_count(prog: Progress) -> int:
    log = prog.data.get("log")
    recorded = log.get("blocks") if isinstance(log, dict) else None
    if isinstance(recorded, int) and not isinstance(recorded, bool) and recorded >= 0:
        return recorded
    return len(prog.blocks)


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


def single_line(text: str, what: str) -> str:
    """User or agent text made safe for one Markdown bullet line (no line breaks, no controls)."""
    if not isinstance(text, str):
        raise InputError("INVALID_INPUT", f"{what} must be text")
    cleaned = " ".join(text.replace("\r", "\n").split())
    if not cleaned:
        raise InputError("INVALID_INPUT", f"{what} is empty: give it some text")
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in cleaned):
        raise InputError("INVALID_INPUT", f"{what} holds control characters: remove them")
    if not cleaned.isascii():
        # a lone surrogate (a library or MCP caller's str; the CLI refuses undecodable
        # arguments first) cannot be written as UTF-8: refused here, before anything is
        # created, not by the write after a folder was made (`Spec.init`)
        try:
            cleaned.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError("INVALID_INPUT", f"{what} is not valid UTF-8 text (it holds a "
                             "lone surrogate): pass it in UTF-8; nothing was written") from None
    return cleaned

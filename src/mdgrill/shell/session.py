"""The shell around one spec: load under the lock, check what was read, write what changed.

Every verb that changes `.progress.md` goes through `transaction`, so each of them gets the
same guarantees: invariants checked on load, the log's digest verified, the new text parsed
and checked again before it replaces the old one atomically.
"""

from __future__ import annotations

import os
import time

from mdgrill.errors import GateRefusal, InputError, MdgrillError
from mdgrill.formats import frontmatter as frontmatter_io
from mdgrill.formats.progress import (
    ROUND_EDITED_HINT,
    Progress,
    change_splices,
    log_digest,
    read_progress,
)
from mdgrill.formats.textfile import TextFile
from mdgrill.model.record import check_record
from mdgrill.shell import store

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from mdgrill.core.machine.reports import Written
    from mdgrill.formats.progress import Transition

    W = TypeVar("W", bound=Written)


def display(path: str) -> str:
    """A path as diagnostics show it: relative to the working directory when inside it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") and os.path.isabs(path) else rel


def spec_hint(spec: store.Spec) -> str:
    """The spec as a next-step hint names it: its folder as shown, quoted for a shell."""
    from mdgrill.core.hints import spec_arg

    return spec_arg(display(spec.progress))


# An editor that saves by truncating and rewriting in place leaves the file empty or cut
# short for a moment, and on a busy machine that moment can last. A read that does not load
# is retried while the bytes keep changing, or while the file was written within the quiet
# window (an empty file, never a real `.progress.md`, gets the longer one); a file that stays
# broken and untouched is reported at once, and no wait is longer than SETTLE_LIMIT.
SETTLE_PAUSE = 0.025
SETTLE_QUIET = 0.3
SETTLE_QUIET_EMPTY = 1.5
SETTLE_LIMIT = 5.0
# How often a write is computed again when an editor saved the file in the meantime.
WRITE_TRIES = 5


def load(spec: store.Spec, check: bool = True) -> Progress:
    return load_bytes(spec, check)[1]


class ParseCache:
    """The last parses of a few files, each kept with the bytes it was read from.

    A long-lived process (`mdgrill mcp`, `lsp`, `watch`) reads a spec on every call; parsing
    it again when its bytes did not change is most of a read. The file is read every time
    and a parse is reused only for the very bytes it came from, so no read is ever stale.
    A parse is never changed by its users (a write makes a new one), so sharing it is safe.
    """

    __slots__ = ("_entries", "size")

    def __init__(self, size: int = 8) -> None:
        self.size = size
        # (file, as shown) -> (its bytes, or the text they encode until a read needs them;
        # their parse or what makes it on first use; whether check_loaded passed on it)
        self._entries: dict[tuple[str, str], tuple[bytes | TextFile,
                                                   Progress | Callable[[], Progress], bool]] = {}

    def get(self, key: tuple[str, str], data: bytes, check: bool) -> Progress | None:
        found = self._entries.get(key)
        if found is not None and isinstance(found[0], TextFile):
            # written by this process: encoded on its next read, not by every write (a CLI
            # verb writes and ends, and never pays for bytes no one compares)
            found = (found[0].encode(), found[1], found[2])
            self._entries[key] = found
        if found is None or found[0] != data or (check and not found[2]):
            return None
        prog = found[1]
        if not isinstance(prog, Progress):  # made when first read, not when written
            try:
                prog = prog()
            except MdgrillError:  # the load reads these bytes as any other, and says why
                del self._entries[key]
                return None
            self._entries[key] = (data, prog, found[2])
        return prog

    def clear(self) -> None:
        self._entries.clear()

    def put(self, key: tuple[str, str], data: bytes | TextFile,
            prog: Progress | Callable[[], Progress], checked: bool) -> None:
        self._entries.pop(key, None)
        while len(self._entries) >= self.size:  # the oldest goes (dicts keep their order)
            del self._entries[next(iter(self._entries))]
        self._entries[key] = (data, prog, checked)


PARSED = ParseCache()


def load_bytes(spec: store.Spec, check: bool = True,
               locked: bool = False) -> tuple[bytes, Progress]:
    """The file's bytes and their parse; a torn read is retried, a broken file reported.
    `locked`: the caller holds the folder's lock, whose taking removed a killed writer's
    leftovers already."""
    if not locked:
        store.sweep_temps(spec.folder)
    shown = display(spec.progress)
    key = (spec.progress, shown)
    data = store.read_file(spec.progress, shown, spec.root)
    cached = PARSED.get(key, data, check)
    if cached is not None:
        return data, cached
    deadline = time.monotonic() + SETTLE_LIMIT
    while True:
        try:
            prog = read_progress(data, shown)
            if check:
                check_loaded(prog)
            PARSED.put(key, data, prog, check)
            return data, prog
        except MdgrillError:
            if time.monotonic() > deadline:
                raise
            time.sleep(SETTLE_PAUSE)
            again = store.read_file(spec.progress, shown, spec.root)
            if again == data and not written_within(
                    spec.progress, SETTLE_QUIET_EMPTY if not data.strip() else SETTLE_QUIET):
                raise
            data = again


def written_within(path: str, seconds: float) -> bool:
    """Whether the file was modified less than `seconds` ago (a save may be under way)."""
    try:
        return time.time() - os.stat(path).st_mtime < seconds
    except OSError:
        return False


def check_loaded(prog: Progress) -> None:
    """Refuse a file whose record breaks an invariant or whose recorded log was edited."""
    if prog.fm is None:
        raise InputError("MALFORMED_FILE", f"{prog.path}:1:1: no front matter: this is not an "
                         "mdgrill .progress.md (run `mdgrill init`, or `mdgrill import-ralph` "
                         "for a smart-ralph spec)", path=prog.path, line=1)
    problems = check_record(prog.data)
    if problems:
        first = problems[0]
        span = prog.fm.spans.get(first.key)
        line = span[0] + 1 if span else 1
        raise InputError(first.code if first.code != "INVALID_STATE" else "INVALID_STATE",
                         f"{prog.path}:{line}:1: {first.message}: fix the front matter by hand "
                         "or restore it from git", path=prog.path, line=line)
    check_log(prog)


def check_log(prog: Progress) -> None:
    if prog.log_seal() is False:
        line = prog.log_edited_line()
        raise GateRefusal("ROUND_EDITED", f"{prog.path}:{line}:1: {ROUND_EDITED_HINT}",
                          path=prog.path, line=line)


def verify_written(tf: TextFile, path: str, log_span: tuple[int, int] | None,
                   before: Progress | None = None) -> Callable[[], Progress]:
    """Check text about to be written: its record holds and its log matches its digest; what
    makes the text's parse from the front matter read here (for the next read of the file).

    With the log's new span known, only the front matter is parsed and the log hashed (from
    `before`'s digest, when the new log is shown to start with its log); otherwise the whole
    file is checked as a load checks it.
    """
    if log_span is None:
        after = Progress(tf, path)
        check_loaded(after)
        return lambda: after
    fm = frontmatter_io.split(tf, path)
    if fm is None:
        raise InputError("INTERNAL_WRITE_CHECK", "the front matter vanished")
    frontmatter_io.load(tf, fm, path)
    problems = check_record(fm.data)
    if problems:
        raise InputError(problems[0].code, problems[0].message)
    log = fm.data.get("log")
    written = before.digest_after_append(tf, log_span) if before is not None else None
    if written is None:
        written = log_digest(tf.slice(*log_span))
    if not isinstance(log, dict) or written != log.get("sha256"):
        raise InputError("INTERNAL_WRITE_CHECK", "the log does not match its digest")
    # a CLI process writes and ends: the body is scanned only if this process reads it again
    if before is None:
        return lambda: Progress(tf, path, fm)
    return lambda: _after_write(tf, path, fm, before)


def _after_write(tf: TextFile, path: str, fm: frontmatter_io.FrontMatter,
                 before: Progress) -> Progress:
    """The parse of written text, taking from the parse it was computed from the bullets of
    every block and node whose text did not change (`Progress.reuse_bullets`: what reading
    them again would give). A server's next call reads the log's ledger again; without this
    it read every block of the log anew after each write (issue 37, goal 2)."""
    after = Progress(tf, path, fm)
    after.reuse_bullets(before)  # takes only what `before` read: none for a last-block append
    return after


def encodable(tf: TextFile) -> TextFile:
    """`tf`, once it is known to encode: the write streams it (`TextFile.pieces`), so no
    whole-file copy of its bytes is made for an ASCII text, which always encodes; of any
    other, what could hold a lone surrogate is encoded once here (`check_encodes`), so one is
    refused before the checks hash any of it."""
    if not tf.known_ascii():
        tf.check_encodes()
    return tf


def transaction(spec: store.Spec, step: Callable[[Progress], Transition[W]]) -> W:
    """Lock, load, check, run one pure step, re-check the result, write it atomically.

    The lock keeps other mdgrill processes out, not editors: when the file changed since it
    was read, the step runs again on the new bytes (it is pure), so a hand edit saved
    meanwhile is kept and the change lands on top of it, checked like any other.
    """
    with store.Lock(spec.folder):
        for attempt in range(WRITE_TRIES):
            read, prog = load_bytes(spec, locked=True)
            change, result = step(prog)
            if not (change.updates or change.touches_log or change.insert_nodes):
                result["written"] = False
                return result
            try:  # the new text, its log's seal and its bytes
                # the new text as the old one's splices: a CLI verb writes it and ends, and
                # never makes it whole (TextFile.spliced)
                new_tf = prog.tf.spliced(change_splices(prog, change))
                data = encodable(new_tf)
            except UnicodeEncodeError:  # a lone surrogate, from a caller of the library
                raise InputError("INVALID_INPUT", "a value to record is not valid UTF-8 text "
                                 "(it holds a lone surrogate): pass it in UTF-8; nothing was "
                                 "written") from None
            try:
                after = verify_written(new_tf, prog.path, change.log_span_after, prog)
            except MdgrillError as exc:  # a defect of ours: never write it
                raise InputError("INTERNAL_WRITE_CHECK",
                                 f"mdgrill refused to write {prog.path}: the result would not "
                                 f"read back ({exc.message}); nothing was written. Please report "
                                 "this.") from None
            try:
                store.atomic_write(spec.progress, data, expect=read)
            except store.FileChanged:
                if attempt == WRITE_TRIES - 1:
                    raise
                continue
            # what was written was checked as a load checks it: the next read of these
            # bytes takes its parse from this check instead of parsing the front matter again
            PARSED.put((spec.progress, prog.path), data, after, True)
            result["written"] = True
            if attempt:
                result["redone"] = attempt
            return result
    raise AssertionError("unreachable")

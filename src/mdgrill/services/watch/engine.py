"""The watch engine: a debounced queue of targets, one worker thread, and what each check
reports (only what changed)."""

from __future__ import annotations

import heapq
import os
import threading
import time
from hashlib import sha256
from typing import TYPE_CHECKING

from mdgrill.core.artifact_gate import STANDING_KINDS, Standing, log_blocks, standing_approvals
from mdgrill.diagnostics import Diagnostic
from mdgrill.errors import InputError, MdgrillError
from mdgrill.shell import store
from mdgrill.shell.drift import changed_diagnostic, sha_now, stale_approval, stale_message
from mdgrill.shell.session import SETTLE_QUIET_EMPTY, written_within
from mdgrill.shell.walk import skipped_folder

if TYPE_CHECKING:
    import ast
    import logging

    from watchdog.events import FileSystemEventHandler

    from mdgrill.formats.progress import Progress
    from mdgrill.services.watch.output import Report, Sink
from mdgrill.services.watch.bound import BoundFiles, check, relative, standing_bindings
from mdgrill.services.watch.checking import (
    BlockCache,
    problem_key,
    ready_for_approval,
    validate_progress,
)
from mdgrill.services.watch.targets import (
    BOUND,
    DIR,
    JB_SUFFIXES,
    MAP,
    MAX_BLOCK_CACHES,
    MISSING_GRACE,
    QUESTIONNAIRE,
    QUESTIONS,
    SPEC,
    display,
    find_targets,
    target_of,
)


class TargetState:
    """What the last check of one target found (kept small: no file text)."""

    __slots__ = ("sha", "diags", "stale", "ready", "ready_key", "edits", "saved_sha",
                 "data", "terms", "retried", "iv_line", "log",
                 "standing", "drift")

    def __init__(self) -> None:
        self.sha: str | None = None
        self.diags: dict[tuple[str, str, str, str], Diagnostic] = {}
        self.stale: tuple[object, ...] | None = None
        self.ready: bool | None = None
        self.ready_key: str | None = None
        self.edits: set[tuple[str, str, str]] = set()
        self.saved_sha: str | None = None
        self.data: dict[str, object] | None = None  # the front matter of the last parse
        self.terms: dict[str, tuple[str, str, int]] | None = None  # glossary: name -> text
        self.retried = False
        self.iv_line = 1  # 1-based line of the front matter's `interview:` key
        self.log: str | None = None  # the log as last seen (it only grows)
        self.standing: list[Standing] = []  # artifact approvals that stand
        self.drift: dict[tuple[str, str], Diagnostic] = {}  # those whose file changed


class Watcher:
    """The watch engine: `start()` / `stop()` around an observer, or `scan_all()` once."""

    def __init__(self, top: str, root: str, sink: Sink, *, debounce: float = 0.04,
                 max_wait: float = 0.5, keep_snapshots: bool = True,
                 max_targets: int = 10_000) -> None:
        self.top = os.path.abspath(top)
        self.root = os.path.abspath(root)
        self.sink = sink
        self.debounce = debounce
        self.max_wait = max_wait
        self.keep_snapshots = keep_snapshots
        self.max_targets = max_targets
        self.reports = 0
        self._states: dict[tuple[str, str], TargetState] = {}
        self._own: dict[str, str] = {}
        self._caches: dict[str, BlockCache] = {}
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, tuple[str, str]]] = []
        self._due: dict[tuple[str, str], float] = {}
        self._first: dict[tuple[str, str], float] = {}
        self._seq = 0
        self._stopping = False
        self._worker: threading.Thread | None = None
        self._observer: object | None = None
        self._bound = BoundFiles()  # the files settled decisions are bound to
        self._broken: dict[tuple[str, str, str, str], Diagnostic] = {}

    # -- life cycle ------------------------------------------------------------------

    def start(self) -> None:
        """Start the observer and the worker, and return: the worker checks every target
        once, reports `started`, then follows events. The caller's thread never waits on
        a check or on the sink (a reader that never reads blocks the worker alone), so a
        stop asked for at any time is taken at once."""
        import logging

        from watchdog.observers import Observer

        # (a filter already added is not added again)
        logging.getLogger("watchdog.observers.inotify").addFilter(_not_the_stop_race)
        observer = Observer()
        observer.schedule(_handler(self), self.top, recursive=True)
        observer.daemon = True
        observer.start()
        self._observer = observer
        self._worker = threading.Thread(target=self._run, name="mdgrill-watch", daemon=True)
        self._worker.start()

    def stop(self, wait: float = 5.0) -> None:
        """Stop following events; checks already due are dropped, and so are the first
        checks not made yet. `wait`: how long to wait for the worker to end the check it is
        in (0: a worker stuck writing a report nobody reads is left to the process's exit,
        a daemon thread)."""
        observer = self._observer
        if observer is not None:
            observer.stop()  # type: ignore[attr-defined]
            observer.join(timeout=5)  # type: ignore[attr-defined]
            self._observer = None
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._worker is not None:
            self._worker.join(timeout=wait)
            self._worker = None

    def scan_all(self) -> list[tuple[str, str]]:
        """Check every target under the watched folder now (what `--once` does)."""
        targets = find_targets(self.top)
        for target in targets:
            self._check(target)
        return targets

    def error_count(self) -> tuple[int, int]:
        """(errors, warnings) standing now, over every target checked."""
        diags = [d for s in self._states.values() for d in s.diags.values()]
        errors = sum(1 for d in diags if d.is_error)
        return errors, len(diags) - errors

    def note_write(self, path: str, data: bytes) -> None:
        """Remember bytes this process wrote, so that the event they cause is skipped."""
        if len(self._own) > 256:
            self._own.clear()
        self._own[os.path.abspath(path)] = sha256(data).hexdigest()

    # -- events ----------------------------------------------------------------------

    def notify(self, path: str) -> None:
        """A file-system event touched `path`: make its target due after the debounce."""
        target = target_of(path, self.top)
        if target is not None:
            self._schedule(target, self.debounce)
        if self._bound.by_spec:
            for suffix in JB_SUFFIXES:
                path = path.removesuffix(suffix)
            rel = relative(path, self.root)
            if rel is not None and self._bound.on(rel):
                self._schedule((BOUND, rel), self.debounce)

    def notify_dir(self, path: str) -> None:
        """A folder appeared (created or moved in): look for targets inside it."""
        if not skipped_folder(path, self.top):
            self._schedule((DIR, path), self.debounce)

    def _schedule(self, key: tuple[str, str], delay: float) -> None:
        now = time.monotonic()
        with self._cond:
            first = self._first.setdefault(key, now)
            due = min(now + delay, first + self.max_wait)
            if key not in self._due:
                self._seq += 1
                heapq.heappush(self._heap, (due, self._seq, key))
                self._cond.notify()
            self._due[key] = max(due, self._due.get(key, 0.0))

    def _next(self) -> tuple[str, str] | None:
        with self._cond:
            while not self._stopping:
                if not self._heap:
                    self._cond.wait()
                    continue
                at, _, key = self._heap[0]
                now = time.monotonic()
                if at > now:
                    self._cond.wait(at - now)
                    continue
                heapq.heappop(self._heap)
                due = self._due[key]
                if due > at:  # more events came: wait for the quiet period again
                    self._seq += 1
                    heapq.heappush(self._heap, (due, self._seq, key))
                    continue
                del self._due[key]
                del self._first[key]
                return key
            return None

    def _run(self) -> None:
        targets = self._first_targets()
        for target in targets:  # events meanwhile wait in the heap
            if self._stopping:
                return
            self._check_one(target)
        # after the first checks: from here on a save of a bound file is seen as one
        self._emit({"kind": "started", "dir": display(self.top),
                    "specs": sum(1 for k, _ in targets if k == SPEC),
                    "glossaries": sum(1 for k, _ in targets if k != SPEC),
                    "bound": self._bound.count()})
        while True:
            key = self._next()
            if key is None:
                return
            self._check_one(key)

    def _first_targets(self) -> list[tuple[str, str]]:
        """What the first checks read (none, said as an error, if the folder cannot be
        walked: the worker's thread ends on no exception, which would print a traceback)."""
        try:
            return find_targets(self.top)
        except Exception as exc:  # noqa: BLE001 - reported; the watch goes on with events
            self._failed(self.top, exc)
            return []

    def _check_one(self, key: tuple[str, str]) -> None:
        try:
            self._check(key)
        except Exception as exc:  # noqa: BLE001 - one bad file never ends the watch
            self._failed(key[1], exc)

    def _failed(self, path: str, exc: Exception) -> None:
        self._emit({"kind": "error", "path": display(path), "code": "INTERNAL",
                    "message": f"checking failed: {type(exc).__name__}: {exc}"})

    # -- checks ----------------------------------------------------------------------

    def _check(self, key: tuple[str, str]) -> None:
        kind, path = key
        if kind == DIR:
            for target in find_targets(path):
                self._schedule(target, 0.0)
        elif kind == SPEC:
            self._check_spec(path)
        elif kind == QUESTIONS:
            self._collect(path)
        elif kind == BOUND:
            self._check_bound(path)
        else:
            self._check_glossary(kind, path)

    def _state(self, key: tuple[str, str], create: bool) -> TargetState | None:
        state = self._states.pop(key, None)  # re-inserted: the dict is kept in LRU order
        if state is None:
            if not create:
                return None
            state = TargetState()
            while len(self._states) >= self.max_targets:
                del self._states[next(iter(self._states))]
        self._states[key] = state
        return state

    def _read(self, key: tuple[str, str], path: str) -> tuple[TargetState, bytes] | None:
        """The target file's bytes, or None (a missing or unreadable file is reported)."""
        state = self._state(key, create=False)
        shown = display(path)
        if not os.path.lexists(path):
            if state is None:
                return None  # an artifact in a folder that holds no spec, or never seen
            if not state.retried:
                state.retried = True
                self._schedule(key, MISSING_GRACE)
                return None
            state.retried = False
            if state.sha is not None:
                state.sha = None
                self._emit({"kind": "error", "path": shown, "code": "NOT_FOUND",
                            "message": f"{shown} was deleted"
                            + (": `mdgrill restore` can bring its rounds back"
                               if key[0] == SPEC else "")})
            return None
        state = self._state(key, create=True)
        assert state is not None
        try:
            data = store.read_file(path, shown, self.root)
        except InputError as exc:
            state.retried = False
            self._emit({"kind": "error", "path": shown, "code": exc.code, "message": exc.message})
            return None
        if not data and (not state.retried or written_within(path, SETTLE_QUIET_EMPTY)):
            # An editor saving in place truncates first: look again before calling it empty,
            # and again while it was just written (a busy machine can stall the editor there)
            state.retried = True
            self._schedule(key, MISSING_GRACE)
            return None
        state.retried = False
        return state, data

    def _check_spec(self, folder: str) -> None:
        spec = store.Spec(folder, self.root)
        key = (SPEC, folder)
        got = self._read(key, spec.progress)
        if got is None:
            return
        state, data = got
        sha = sha256(data).hexdigest()
        if self._own.get(spec.progress) == sha:
            state.sha = sha
            return
        shown = display(spec.progress)
        prog: Progress | None = None
        lost = False
        if sha != state.sha or state.data is None:
            diags, prog = validate_progress(data, shown, self._block_cache(folder))
            self._diff(state, diags, spec)
            if prog is not None:
                state.data = prog.data
                span = prog.fm.spans.get("interview") if prog.fm is not None else None
                state.iv_line = span[0] + 1 if span else 1
                self._edits(state, spec, prog, diags)
                lost = self._went_back(state, spec, prog, diags)
                state.standing = standing_approvals(log_blocks(prog, STANDING_KINDS))
                self._bindings(spec, prog, shown)
        state.sha = sha
        self._artifacts(state, spec, shown)
        if state.data is not None:
            self._stale(state, spec, shown)
        if prog is not None:
            self._ready_flip(state, spec, prog, shown)
            if self.keep_snapshots and sha != state.saved_sha and not lost and \
                    not any(d.is_error for d in state.diags.values()):
                self._save(spec, data, sha, state)

    def _collect(self, folder: str) -> None:
        """A saved questionnaire: record what it answers (as `mdgrill collect` does) and say
        what was recorded, or why nothing was; a save that answers nothing says nothing."""
        from mdgrill.services.answers import collect
        from mdgrill.shell.people import who

        spec = store.Spec(folder, self.root)
        if not os.path.exists(os.path.join(folder, QUESTIONNAIRE)) or \
                not os.path.exists(spec.progress):
            return
        shown = display(os.path.join(folder, QUESTIONNAIRE))
        try:
            got = collect(spec, who(spec, None))
        except MdgrillError as exc:
            self._emit({"kind": "error", "path": shown, "code": exc.code,
                        "message": exc.message})
            return
        filled = got.filled
        for line, message in filled.problems if filled is not None else []:
            self._emit({"kind": "problem", "path": shown, "line": line, "col": 1,
                        "severity": "error", "code": "QUESTIONNAIRE",
                        "message": message + "; nothing was recorded from the file"})
        if got.done is not None:
            self._emit({"kind": "recorded", "path": shown, **got.done.to_json()})

    def _block_cache(self, folder: str) -> BlockCache:
        cache = self._caches.pop(folder, None) or BlockCache()
        while len(self._caches) >= MAX_BLOCK_CACHES:
            del self._caches[next(iter(self._caches))]
        self._caches[folder] = cache
        return cache

    def _diff(self, state: TargetState, diags: list[Diagnostic], spec: store.Spec | None) -> None:
        new = {problem_key(d): d for d in diags}
        extra = {"spec": spec.rel_folder} if spec is not None else {}
        for k, d in sorted(state.diags.items(), key=lambda kv: (kv[1].line, kv[1].code)):
            if k not in new:
                self._emit({"kind": "fixed", **d.to_json(), **extra})
        for k, d in sorted(new.items(), key=lambda kv: (kv[1].line, kv[1].code)):
            if k not in state.diags:
                self._emit({"kind": "problem", **d.to_json(), **extra})
        state.diags = new

    def _edits(self, state: TargetState, spec: store.Spec, prog: Progress,
               diags: list[Diagnostic]) -> None:
        if not any(d.code == "ROUND_EDITED" for d in diags):
            state.edits = set()
            return
        from mdgrill.core.restore import lost_blocks
        from mdgrill.formats.progress import Progress as Parsed
        from mdgrill.formats.textfile import decode
        from mdgrill.shell import snapshots

        good_bytes = snapshots.load(self.root, spec.progress) \
            or snapshots.head_version(self.root, spec.progress)
        if good_bytes is None:
            return
        try:
            good = Parsed(decode(good_bytes, prog.path), prog.path)
        except InputError:
            return
        seen: set[tuple[str, str, str]] = set()
        for loss in lost_blocks(good, prog):
            ident = (loss.title, _h(loss.old_text), _h(loss.new_text or ""))
            seen.add(ident)
            if ident in state.edits:
                continue
            self._emit({"kind": "edited", "path": prog.path, "line": loss.line + 1,
                        "spec": spec.rel_folder, "block": loss.title,
                        "deleted": loss.deleted, "old_text": loss.old_text,
                        "new_text": loss.new_text})
        state.edits = seen

    def _went_back(self, state: TargetState, spec: store.Spec, prog: Progress,
                   diags: list[Diagnostic]) -> bool:
        """Report recorded lines that vanished while the file still reads as sealed.

        An editor holding a copy from before mdgrill's last write saves it back whole: front
        matter and log agree again, so the seal cannot see the loss, but the log, which only
        ever grows, no longer starts with the log seen before. True when lines were lost
        (the last good copy is then left as it was, so `restore` has them).
        """
        if any(d.code == "ROUND_EDITED" for d in diags):
            return False  # `_edits` reports those block by block
        log = prog.log_text()
        old = state.log
        state.log = log
        if old is None or log.startswith(old):
            return False
        old_lines, new_lines = old.split("\n"), log.split("\n")
        same = 0
        while same < min(len(old_lines), len(new_lines)) and old_lines[same] == new_lines[same]:
            same += 1
        lost = [line for line in old_lines[same:] if line.strip()]
        if not lost:
            return False
        span = prog.log_span()
        first = prog.tf.text.count("\n", 0, span[0]) + same + 1 if span else 1
        self._emit({"kind": "lost", "path": prog.path, "code": "LOG_WENT_BACK", "line": first,
                    "spec": spec.rel_folder, "lines": lost,
                    "message": f"{len(lost)} recorded line(s) vanished (first: {lost[0]!r}): "
                               "the file was saved from a copy older than mdgrill's last "
                               "write (an editor buffer?); `mdgrill restore` puts recorded "
                               "blocks back from the last good copy"})
        return True

    def _artifacts(self, state: TargetState, spec: store.Spec, shown: str) -> None:
        """Report an approved artifact the moment its file stops holding the approved bytes
        (and when it holds them again)."""
        now: dict[tuple[str, str], Diagnostic] = {}
        for standing in state.standing:
            current = sha_now(self.root, standing.path)
            if current != standing.sha256:
                now[(standing.path, standing.sha256)] = changed_diagnostic(shown, spec, standing,
                                                                           current)
        extra = {"spec": spec.rel_folder}
        for key, d in state.drift.items():
            if key not in now:
                self._emit({"kind": "fixed", **d.to_json(), **extra})
        for key, d in now.items():
            if key not in state.drift:
                self._emit({"kind": "problem", **d.to_json(), **extra})
        state.drift = now

    def _bindings(self, spec: store.Spec, prog: Progress, shown: str) -> None:
        """Follow the spec's standing bindings; a broken one that is no longer bound as it
        was (reaffirmed, released) is reported fixed."""
        bound = standing_bindings(prog, spec.rel_folder)
        if not self._bound.update(spec.rel_folder, bound):
            return
        standing = {(spec.rel_folder, b.binding.decision, b.binding.target, b.binding.fingerprint)
                    for b in bound}
        for key in [k for k in self._broken if k[0] == spec.rel_folder and k not in standing]:
            d = self._broken.pop(key)
            self._emit({"kind": "fixed", **d.to_json(), "spec": key[0], "decision": key[1],
                        "target": key[2],
                        "message": f"`{key[2]}` is no longer bound as it was: decision {key[1]} "
                                   f"was reaffirmed or released in {shown}"})

    def _check_bound(self, rel: str) -> None:
        """A bound file was saved: report each binding it breaks, or heals."""
        shown = display(os.path.join(self.root, *rel.split("/")))
        parsed: dict[str, ast.Module | None] = {}  # one parse of the file for all its bindings
        for one in self._bound.on(rel):
            got = check(self.root, one, shown, parsed)
            if got is None:
                continue
            extra = {"spec": one.spec, "decision": one.binding.decision,
                     "answer": one.binding.answer, "target": one.binding.target}
            old = self._broken.get(got.key)
            if got.broken is not None:
                if old is None or old.message != got.broken.message:
                    self._emit({"kind": "problem", **got.broken.to_json(), **extra})
                self._broken[got.key] = got.broken
            elif old is not None:
                del self._broken[got.key]
                self._emit({"kind": "fixed", **got.healed.to_json(), **extra})

    def _stale(self, state: TargetState, spec: store.Spec, shown: str) -> None:
        assert state.data is not None
        info = stale_approval(state.data, spec)
        ident: tuple[object, ...] | None = None
        if info is not None:
            ident = (info["old_digest"], info["new_digest"], repr(info["skills"]))
        if ident == state.stale:
            return
        line = state.iv_line
        if info is None:
            self._emit({"kind": "fixed", "path": shown, "line": line, "col": 1,
                        "severity": "error", "code": "INTERVIEW_STALE",
                        "message": "the approval matches the context again",
                        "spec": spec.rel_folder})
        else:
            self._emit({"kind": "stale", "path": shown, "line": line,
                        "spec": spec.rel_folder, **info, "message": stale_message(info)})
        state.stale = ident

    def _ready_flip(self, state: TargetState, spec: store.Spec, prog: Progress,
                    shown: str) -> None:
        body = prog.tf.text[prog.fm.end_offset:] if prog.fm is not None else prog.tf.text
        rkey = _h(repr(prog.data.get("required_sections")) + "\0" + body)
        if rkey == state.ready_key:
            return
        try:
            ready = ready_for_approval(prog)
        except InputError:
            return
        if ready and state.ready is False:
            self._emit({"kind": "ready", "path": shown, "line": 1, "spec": spec.rel_folder,
                        "message": "every required section has a resolved decision and no "
                        "decision or sub-question is open"})
        state.ready = ready
        state.ready_key = rkey

    def _save(self, spec: store.Spec, data: bytes, sha: str, state: TargetState) -> None:
        from mdgrill.shell import snapshots

        try:
            path = snapshots.save(self.root, spec.progress, data)
        except (InputError, OSError) as exc:
            self._emit({"kind": "error", "path": display(spec.progress), "code": "SNAPSHOT_FAILED",
                        "message": f"cannot keep the last good copy: {exc}"})
            return
        self.note_write(path, data)
        state.saved_sha = sha

    def _check_glossary(self, kind: str, path: str) -> None:
        from mdgrill.checks.spec import (
            check_context_map_model,
            check_glossary_model,
            from_input_error,
        )
        from mdgrill.formats.glossary import parse_context_map, parse_glossary
        from mdgrill.formats.markdown import refuse_conflict
        from mdgrill.formats.textfile import decode

        key = (kind, path)
        got = self._read(key, path)
        if got is None:
            return
        state, data = got
        sha = sha256(data).hexdigest()
        if sha == state.sha or self._own.get(path) == sha:
            state.sha = sha
            return
        state.sha = sha
        shown = display(path)
        try:
            tf = decode(data, shown)
            refuse_conflict(tf.text, shown)
        except InputError as exc:
            self._diff(state, [from_input_error(exc, shown)], None)
            return
        if kind == MAP:
            rel = store.relpath_posix(os.path.dirname(path), self.root)
            depth = 0 if rel == "." else rel.count("/") + 1
            self._diff(state, check_context_map_model(parse_context_map(tf, shown), depth), None)
            return
        glossary = parse_glossary(tf, shown)
        self._diff(state, check_glossary_model(glossary), None)
        lines = tf.lines
        terms = {t.name.casefold(): (t.name, "".join(lines[t.start_line:t.end_line]).rstrip(),
                                     t.line) for t in glossary.terms}
        old = state.terms
        state.terms = terms
        if old is None:
            return
        for folded, (name, text, line) in old.items():
            now = terms.get(folded)
            if now is not None and now[1] == text:
                continue
            self._emit({"kind": "edited", "path": shown,
                        "line": now[2] if now is not None else line, "term": name,
                        "block": name, "deleted": now is None, "old_text": text,
                        "new_text": now[1] if now is not None else None})

    def _emit(self, report: Report) -> None:
        self.reports += 1
        self.sink(report)


def _h(text: str) -> str:
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _not_the_stop_race(record: logging.LogRecord) -> bool:
    """Whether watchdog's inotify emitter may show this message. Stopped between its loop's
    check and its read (a watch stopped just after it started: Ctrl-C, or output refused on
    its first report), it logs an error that Python's last-resort handler prints on standard
    error, though nothing was lost; that one is dropped. Its others (a queue that overflowed:
    events lost) are shown."""
    return "called when the thread is inactive" not in record.getMessage()


def _handler(watcher: Watcher) -> FileSystemEventHandler:
    from watchdog.events import FileSystemEvent, FileSystemEventHandler

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.event_type in ("opened", "closed_no_write"):
                return
            dest = getattr(event, "dest_path", "") or ""
            if event.is_directory:
                if event.event_type in ("created", "moved"):
                    watcher.notify_dir(os.fsdecode(dest or event.src_path))
                return
            watcher.notify(os.fsdecode(event.src_path))
            if dest:
                watcher.notify(os.fsdecode(dest))

    return Handler()

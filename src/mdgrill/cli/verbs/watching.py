"""`mdgrill watch [DIR]` and `mdgrill restore SPEC`: the shell around watch.py and restore.py."""

from __future__ import annotations

import argparse
import errno
import os
import sys

from mdgrill.cli.verbs import Outcome, OutputFailed, Verb, add_spec, print_now
from mdgrill.errors import InputError
from mdgrill.git.discovery import find_root
from mdgrill.shell import store

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from mdgrill.services.watch import Watcher


def _watch_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", nargs="?", metavar="DIR",
                   help="folder to watch (default: the repository root)")
    p.add_argument("--once", action="store_true",
                   help="check everything once and exit (exit 1 on errors, like validate)")
    p.add_argument("--debounce", type=int, default=40, metavar="MS",
                   help="quiet time after a save's last event before checking (default 40)")


def _restore_arguments(p: argparse.ArgumentParser) -> None:
    add_spec(p)
    p.add_argument("--dry-run", action="store_true",
                   help="print the unified diff of what would change; write nothing")
    p.add_argument("--from-git", action="store_true",
                   help="take the recorded blocks from HEAD, not from the last good copy")


class LineWriter:
    """Print each report as one line (JSON or human), flushed at once, from any thread.

    A reader gone away is let be (the watch ends on the next signal). Output refused (a full
    disk, an I/O error) stops the watch: `failed` says why and `stopped` is set, and the
    main thread raises it, so `watch` exits OUTPUT_FAILED as every verb does for it, never
    the INTERNAL error it raised from the observer's thread or a traceback of that thread.
    So does a reader that stopped reading, found when the watch is told to stop (`settle`)."""

    def __init__(self, as_json: bool) -> None:
        import threading

        self.as_json = as_json
        self.lock = threading.Lock()
        self.failed: OutputFailed | None = None
        self.stopped = threading.Event()

    def __call__(self, report: dict[str, object]) -> None:
        if self.as_json:
            import json

            line = json.dumps(report, ensure_ascii=False)
        else:
            from mdgrill.services.watch import format_report

            line = format_report(report)
        with self.lock:
            if self.failed is not None:
                return  # the watch is stopping: nothing more is printed
            try:
                write_line(line + "\n")
            except (BrokenPipeError, ValueError):
                pass  # the reader went away; the watch ends on the next signal
            except OutputFailed as exc:
                self.failed = exc
                self.stopped.set()

    def settle(self, timeout: float) -> bool:
        """Whether standard output takes a line within `timeout` seconds: no report's write
        still waits for the reader, and a line more would not wait (for the watch's last
        one). If not, `failed` says why and nothing more is printed."""
        import time

        end = time.monotonic() + timeout
        if self.lock.acquire(timeout=timeout):
            try:
                if self.failed is not None or _writable(end - time.monotonic()):
                    return True
            finally:
                self.lock.release()
        self.failed = OutputFailed(
            OSError(errno.EAGAIN, "standard output was not being read when the watch was told "
                                  "to stop"),
            "read the watch's lines as they come, or send them to a file (`> watch.log`)")
        return False


def write_line(text: str) -> None:
    """`print_now(text)`, written to standard output's file descriptor where it has one (the
    stream flushed first, so what it holds goes before), encoded as the stream would (its
    encoding, its errors, its line ends). A write the reader does not take then waits in
    the system call alone, holding none of the stream's locks: the process can still print
    its last line and exit while the watch's worker waits there (a daemon thread)."""
    out = sys.stdout
    try:
        fd = out.fileno()
    except (AttributeError, ValueError, OSError):  # a stream with no descriptor (io.StringIO)
        print_now(text)
        return
    if os.linesep != "\n":  # as the stream translates them (Windows)
        text = text.replace("\n", os.linesep)
    data = text.encode(out.encoding or "utf-8", out.errors or "strict")
    try:
        out.flush()
        store.write_all(fd, data)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputFailed(exc) from None


def _writable(timeout: float) -> bool:
    """Whether standard output's descriptor takes a write within `timeout` seconds (a pipe
    with room for a line: Linux says so while a page of it is free). True where it cannot
    be asked (no descriptor; Windows, whose select() takes sockets alone)."""
    if os.name == "nt":
        return True
    import select

    try:
        fd = sys.stdout.fileno()
        return bool(select.select([], [fd], [], max(timeout, 0.0))[1])
    except (AttributeError, ValueError, OSError):
        return True


def _watch(args: argparse.Namespace) -> Outcome:
    from mdgrill.services.watch import Watcher

    top = args.dir or args.root or find_root(os.getcwd())
    if not os.path.isdir(top):
        raise InputError("NOT_FOUND", f"{top} is not a folder: give the folder to watch")
    root = store.repository(top, args.root)
    if args.debounce < 0:
        raise InputError("USAGE", "--debounce must be 0 or more milliseconds")
    writer = LineWriter(bool(getattr(args, "json", False)))
    watcher = Watcher(top, root, writer, debounce=args.debounce / 1000)
    if args.once:
        targets = watcher.scan_all()
        if writer.failed is not None:
            raise writer.failed
        errors, warnings = watcher.error_count()
        specs = sum(1 for kind, _ in targets if kind == "spec")
        result: dict[str, object] = {"kind": "stopped", "specs": specs,
                                     "glossaries": len(targets) - specs, "errors": errors,
                                     "warnings": warnings}
        text = f"checked {specs} specs and {len(targets) - specs} glossaries: {errors} " \
               f"errors, {warnings} warnings"
        return Outcome(result, text, 1 if errors else 0)
    return _follow(watcher, writer)


def _follow(watcher: Watcher, writer: LineWriter) -> Outcome:
    import signal

    stop = writer.stopped  # a signal sets it, or output refused

    def ask_stop(signum: int, frame: object) -> None:
        stop.set()

    # Ctrl-C, a `kill`, and the Windows console's Ctrl-Break (SIGBREAK exists only there)
    stops = [signal.SIGTERM, signal.SIGINT, *([signal.SIGBREAK] if hasattr(signal, "SIGBREAK")
                                              else [])]
    previous = {sig: signal.signal(sig, ask_stop) for sig in stops}
    try:
        watcher.start()
        while not stop.wait(3600):
            pass
    finally:
        # a worker waiting to write a report nobody reads is not waited for
        unread = not writer.settle(1.0)
        watcher.stop(wait=0 if unread else 5)
        if not unread:  # the worker's last report may have filled the pipe
            writer.settle(1.0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if writer.failed is not None:
        raise writer.failed
    return Outcome({"kind": "stopped", "reports": watcher.reports}, "stopped", 0)


def _restore(args: argparse.Namespace) -> Outcome:
    from mdgrill.core.restore import restore
    from mdgrill.formats.progress import Progress
    from mdgrill.formats.textfile import TextFile, decode
    from mdgrill.shell import snapshots
    from mdgrill.shell.session import check_log, display

    spec = store.resolve_spec(args.spec, args.root, must_exist=False)
    if not os.path.isdir(spec.folder):
        raise InputError("NOT_FOUND", f"no spec folder at {args.spec}")
    shown = display(spec.progress)
    with store.Lock(spec.folder):
        current = store.read_file(spec.progress, shown, spec.root) \
            if os.path.lexists(spec.progress) else b""
        good = None if args.from_git else snapshots.load(spec.root, spec.progress)
        source = "last-good"
        if good is None:
            good, source = snapshots.head_version(spec.root, spec.progress), "git HEAD"
        if good is None:
            raise InputError("NOT_FOUND", f"no last good copy of {shown} (`mdgrill watch` keeps "
                             "one after each clean save) and it is not committed at HEAD: "
                             "nothing to restore from")
        good_tf = decode(good, f"the {source} copy of {shown}")
        cur_tf = decode(current, shown) if current else TextFile("", good_tf.bom,
                                                                 good_tf.newline)
        done = restore(good_tf.text, cur_tf.text, shown)
        new_tf = cur_tf.with_text(done.text)
        remaining: list[str] = []
        if done.changed:
            after = Progress(new_tf, shown)
            check_log(after)  # a defect of ours if it fails: raises, nothing written
            from mdgrill.model.record import check_record

            remaining = [p.message for p in check_record(after.data)]
            if not args.dry_run:
                store.atomic_write(spec.progress, new_tf.encode(),
                                   expect=current if current else None)
    result: dict[str, object] = {
        "spec": spec.rel_folder, "path": spec.rel_progress, "source": source,
        "restored": done.restored, "kept": done.kept, "digest_updated": done.digest_updated,
        "changed": done.changed, "written": done.changed and not args.dry_run,
        "remaining_problems": remaining}
    if args.dry_run:
        result["diff"] = done.diff
    return Outcome(result, _restore_text(done.changed, args.dry_run, done.diff, shown, source,
                                         done.restored, done.kept, remaining))


def _restore_text(changed: bool, dry_run: bool, diff: str, shown: str, source: str,
                  restored: list[str], kept: list[str], remaining: list[str]) -> str:
    if not changed:
        return f"{shown}: no recorded block is missing; nothing to restore"
    if dry_run:
        return diff.rstrip("\n")
    lines = [f"restored {len(restored)} block(s) into {shown} from the {source} copy"]
    lines.extend(f"  put back: {title}" for title in restored)
    lines.extend(f"  kept (added after the good copy): {title}" for title in kept)
    lines.extend(f"  still wrong in the front matter: {m}" for m in remaining)
    return "\n".join(lines)


VERBS = (
    Verb("watch", "Revalidate specs on every save; report what broke and what healed.",
         _watch_arguments, _watch),
    Verb("restore", "Put back recorded blocks a bad edit lost, from the last good copy.",
         _restore_arguments, _restore),
)

"""Files on disk: find specs, read them safely, lock a spec, write atomically.

The lock is the system's (`shell/locks`: `flock` on the spec folder itself on POSIX, so it
leaves no file behind). A write goes to a temporary file in the same folder, is fsynced and
renamed over the target: a crash leaves the old file or the new one, never a torn one.
"""

from __future__ import annotations

import os
import stat

from mdgrill.errors import InputError
from mdgrill.formats.textfile import MAX_FILE_BYTES, TextFile
from mdgrill.git.discovery import repo_root

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROGRESS = ".progress.md"
TEMP_PREFIX = ".mdgrill-tmp-"
# what `still` reads at a time (a buffer the allocator reuses, no fresh pages)
_COMPARE_PIECE = 64 * 1024
# Windows opens a descriptor in text mode unless told otherwise: CRLF read as LF, a Ctrl-Z
# read as the end. Bytes are compared and written as they are.
_BINARY = getattr(os, "O_BINARY", 0)


class Spec:
    """Where a spec lives: its folder, its `.progress.md`, and the repository around it."""

    __slots__ = ("folder", "progress", "root", "rel_folder", "rel_progress")

    def __init__(self, folder: str, root: str) -> None:
        self.folder = folder
        self.progress = os.path.join(folder, PROGRESS)
        self.root = root
        self.rel_folder = relpath_posix(folder, root)
        self.rel_progress = relpath_posix(self.progress, root)


def relpath_posix(path: str, root: str) -> str:
    rel = os.path.relpath(path, root)
    return rel.replace(os.sep, "/")


def is_inside(path: str, root: str, paths: Any = os.path) -> bool:
    """Whether `path` lies in `root` once links and `..` are resolved, compared the way the
    system compares paths (`normcase`: case-folded, with `\\` separators on Windows; a
    path on another drive is never inside). `paths` is `os.path` but for tests (`ntpath`)."""
    real: str = paths.normcase(paths.realpath(path))
    real_root: str = paths.normcase(paths.realpath(root))
    return real == real_root or real.startswith(real_root.rstrip(paths.sep) + paths.sep)


def repository(path: str, root: str | None = None) -> str:
    """The root whose rules hold for `path`: the git work tree holding it, whatever `--root`
    says (`--root` names where to look, it never takes a spec out of its repository's rules:
    approval evidence, commits, history); else `root`; else the folder itself."""
    start = os.path.abspath(path)
    if not os.path.isdir(start):
        start = os.path.dirname(start)
    found = repo_root(start)
    if found is not None:
        return found
    return os.path.abspath(root) if root else start


def require_in_work_tree(path: str, root: str, shown: str | None = None) -> str:
    """`path` resolved (links and `..`), when it lies in the work tree of `root` and not in a
    `.git` folder or file; else PATH_OUTSIDE_REPOSITORY (for every path a file, a tool
    argument or a URI names: git's own files are never mdgrill's to write)."""
    real = os.path.realpath(path)
    real_root = os.path.realpath(root)
    shown = shown or path
    if not is_inside(real, real_root):
        raise InputError("PATH_OUTSIDE_REPOSITORY", f"{shown} resolves outside the repository "
                         f"{root}: mdgrill only reads and writes inside its work tree")
    parts = os.path.relpath(real, real_root).split(os.sep)
    if any(os.path.normcase(part) == os.path.normcase(".git") for part in parts):
        raise InputError("PATH_OUTSIDE_REPOSITORY", f"{shown} is inside git's own `.git`, not "
                         "the work tree: mdgrill never writes there")
    return real


def resolve_spec(arg: str, root: str | None = None, must_exist: bool = True) -> Spec:
    """A SPEC argument (a folder or its `.progress.md`) as a Spec, refusing what escapes."""
    path = os.path.abspath(arg)
    if os.path.basename(path) == PROGRESS or (os.path.isfile(path) and path.endswith(".md")):
        folder = os.path.dirname(path)
    else:
        folder = path
    if root is not None and not is_inside(folder, root):
        raise InputError("PATH_OUTSIDE_REPOSITORY", f"{arg} is outside --root {root}: give a "
                         "spec inside it, or leave --root out")
    repo = repository(folder, root)
    if root is None and ".." in arg.replace("\\", "/").split("/") and not os.path.isabs(arg):
        here = repo_root(os.getcwd())
        if here is not None and repo_root(folder) is None:
            # `specs/../../x` from inside a repository would land in no repository at all;
            # that is a typo far more often than a wish (a symlink out is refused the same way)
            raise InputError("PATH_OUTSIDE_REPOSITORY", f"{arg} leads out of the repository "
                             f"{here} into a folder of no repository: mdgrill keeps specs "
                             "inside one (give --root DIR to work in a plain folder)")
    if must_exist and not os.path.isdir(folder):
        raise InputError("NOT_FOUND", f"no spec at {arg}: give a spec folder (one holding "
                         f"{PROGRESS}) or create it with `mdgrill init`")
    if os.path.lexists(folder) and not is_inside(folder, repo):
        raise InputError("PATH_OUTSIDE_REPOSITORY", f"{arg} resolves outside the repository "
                         f"{repo} (through a symlink?): mdgrill only reads and writes inside it")
    spec = Spec(folder, repo)
    if must_exist and not os.path.lexists(spec.progress):
        raise InputError("NOT_FOUND", f"{arg} has no {PROGRESS}: run `mdgrill init {arg} "
                         "--goal TEXT` to start one")
    return spec


def read_file(path: str, display: str | None = None, root: str | None = None,
              limit: int = MAX_FILE_BYTES) -> bytes:
    """A regular file's bytes; folders, devices, symlinks out of `root` and huge files refused."""
    shown = display or path
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError("NOT_FOUND", f"{shown} does not exist") from None
    except OSError as exc:
        raise InputError("UNREADABLE", f"{shown} cannot be read: {exc.strerror}") from None
    except ValueError:  # the path holds a NUL character
        raise InputError("UNREADABLE", f"{shown!r} is not a usable path") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError("NOT_A_FILE", f"{shown} is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise InputError("NOT_A_FILE", f"{shown} is not a regular file")
    if root is not None and not is_inside(path, root):
        raise InputError("PATH_OUTSIDE_REPOSITORY", f"{shown} resolves outside the repository "
                         "(a symlink out of it?): refused")
    if st.st_size > limit:
        raise InputError("FILE_TOO_LARGE", f"{shown} is {st.st_size:,} bytes; mdgrill reads files "
                         f"up to {limit:,} bytes", path=shown)
    try:
        with open(path, "rb") as handle:
            # the size stat gave, and one byte more to see a file that grew since: a read of
            # `limit + 1` at once sized its buffer for 64 MB, which the allocator maps afresh
            # each time (a server reading a 3 MB file again paid 1.45 ms a read, not 0.14)
            data = handle.read(st.st_size + 1)
            if len(data) > st.st_size:  # it grew: the rest, as far as the limit
                data += handle.read(limit + 1 - len(data))
            return data
    except OSError as exc:
        raise InputError("UNREADABLE", f"{shown} cannot be read: {exc.strerror}") from None


class Lock:
    """The folder's exclusive lock, held for one read-check-write cycle."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.handle: int | None = None

    def __enter__(self) -> Lock:
        from mdgrill.shell.locks import backend

        try:
            self.handle = backend().acquire(self.folder, wait=True)
        except OSError as exc:
            raise InputError("UNREADABLE", f"cannot open {self.folder}: {exc.strerror}") from None
        remove_stale_temps(self.folder)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.handle is not None:
            from mdgrill.shell.locks import backend

            backend().release(self.handle)
            self.handle = None


def remove_stale_temps(folder: str) -> None:
    """Temp files left by a process killed mid-write (we hold the lock: none is in use)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name.startswith(TEMP_PREFIX):
            try:  # noqa: SIM105 - contextlib would cost 0.5 ms on every start
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass


class FileChanged(InputError):
    """The file is no longer the bytes a write was computed from (an editor saved meanwhile)."""

    def __init__(self, path: str) -> None:
        super().__init__("FILE_CHANGED", f"{path} changed while mdgrill was writing it (saved "
                         "from an editor?): nothing was written, so that edit is kept; run the "
                         "command again", path=path)


def still(path: str, expect: bytes) -> bool:
    """Whether `path` still holds exactly `expect` (the lock keeps mdgrill out, not editors)."""
    handle = open_current(path)
    try:
        return holds(handle, expect)
    finally:
        if handle >= 0:
            _close_quietly(handle)


def atomic_write(path: str, data: bytes | TextFile, expect: bytes | None = None) -> None:
    """Replace `path` with `data` so that a crash leaves either the old or the new file.

    `data` is the bytes, or a TextFile whose `encode()` they are, written a piece at a time
    (the whole file's bytes are never made: a 3.3 MB copy is 800 fresh pages of memory). A
    text that cannot be encoded raises its UnicodeEncodeError with nothing written.

    The new bytes are fsynced in a temporary file of the same folder before it is renamed
    over `path`, and the folder is fsynced after: when this returns, the new file is on disk.

    A process killed between creating its temporary file and renaming it leaves that file
    behind; the next mdgrill call that takes the folder's lock removes it.

    With `expect`, the file is compared with those bytes just before the rename, and
    `FileChanged` is raised instead of replacing a save an editor made since they were read.
    The window left is the rename itself, microseconds rather than the whole command.
    """
    folder = os.path.dirname(os.path.abspath(path))
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o644
    temp = os.path.join(folder, f"{TEMP_PREFIX}{os.getpid()}-{os.path.basename(path)}")
    fd = old = -1
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_EXCL | _BINARY, mode)
        if isinstance(data, TextFile):
            for piece in data.pieces():
                write_all(fd, piece)
        else:
            write_all(fd, data)
        os.fsync(fd)
        os.close(fd)
        fd = -1
        # the file about to be replaced, opened now: compared with `expect`, and held over
        # the rename so that freeing it is left to `retire`, after the write is durable
        old = open_current(path)
        if expect is not None and not holds(old, expect):
            os.unlink(temp)
            raise FileChanged(path)
        if os.name == "nt" and old >= 0:  # Windows refuses to replace a file held open
            os.close(old)
            old = -1
        os.replace(temp, path)
    except BaseException as exc:
        for handle in (fd, old):
            if handle >= 0:
                _close_quietly(handle)
        try:  # noqa: SIM105 - as above (a text that failed to encode leaves no temp file)
            os.unlink(temp)
        except OSError:
            pass
        if not isinstance(exc, OSError):
            raise
        raise InputError("WRITE_FAILED", f"cannot write {path}: {exc.strerror}") from None
    _fsync_folder(folder)
    retire(old)


def open_current(path: str) -> int:
    """A read-only handle on the file at `path` now, or -1 when none can be opened (never
    waiting: a FIFO there opens without a writer)."""
    try:
        return os.open(path, os.O_RDONLY | _BINARY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return -1


def holds(handle: int, expect: bytes) -> bool:
    """Whether the file open as `handle` (from its start) holds exactly `expect`."""
    # compared a piece at a time, not read whole beside `expect`: a second copy of a 3 MB
    # file was 800 fresh pages of memory, 1-2 ms of system time a write
    if handle < 0:
        return False
    at = 0
    try:
        while True:
            piece = os.read(handle, _COMPARE_PIECE)
            if not piece:
                return at == len(expect)
            # False as well where the file goes on past `expect`
            if not expect.startswith(piece, at):
                return False
            at += len(piece)
    except OSError:
        return False


def retire(handle: int) -> None:
    """Close the last handle on a file a rename replaced, on a thread of its own.

    That close frees the old file's blocks, and where the file system is mounted with
    `discard` (online TRIM, as here) the closing thread waits for the disk to trim them: a
    third disk round trip after the write's two fsyncs, as long as an fsync on a busy disk
    (issue 37, goal 2). The new file is durable before this; a crash before the close leaves
    the old file's blocks to the file system's own recovery (an open, unlinked file is on its
    orphan list), as for any process that dies holding a file open."""
    if handle >= 0:
        _CLOSER.close(handle)


class _Closer:
    """One thread, started with the first handle, that closes the handles it is given (a
    long-lived server writes thousands of times: no thread is started for each)."""

    def __init__(self) -> None:
        import _thread

        self.pending: list[int] = []
        self.start = _thread.allocate_lock()  # held while the thread is being started
        self.wake: Any = None  # released when a handle is waiting (the thread takes it)

    def close(self, handle: int) -> None:
        import _thread

        self.pending.append(handle)
        with self.start:
            if self.wake is None:
                wake = _thread.allocate_lock()
                wake.acquire()
                try:
                    _thread.start_new_thread(self._run, (wake,))
                except RuntimeError:  # no thread to be had: close it here
                    _close_quietly(self.pending.pop())
                    return
                self.wake = wake
        try:  # noqa: SIM105 - as above
            self.wake.release()
        except RuntimeError:  # released already: the thread has yet to take it
            pass

    def _run(self, wake: Any) -> None:
        while True:
            wake.acquire()
            while self.pending:
                _close_quietly(self.pending.pop())


_CLOSER = _Closer()


def _closer_in_child() -> None:
    """A forked child has the parent's `_CLOSER` but not its thread: a new one, so the
    child's replaced files are closed too (a library user may fork after a write). The
    handles the parent had yet to close are the child's copies: closed here at once (the
    parent still holds the file, so closing a copy waits on no disk)."""
    global _CLOSER
    inherited = _CLOSER.pending
    _CLOSER = _Closer()
    for handle in inherited:
        _close_quietly(handle)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_closer_in_child)


def _close_quietly(handle: int) -> None:
    try:  # noqa: SIM105 - as above
        os.close(handle)
    except OSError:
        pass


def sweep_temps(folder: str) -> None:
    """Remove leftovers of a killed writer, if no writer holds the folder now."""
    from mdgrill.shell.locks import backend

    try:
        if not any(name.startswith(TEMP_PREFIX) for name in os.listdir(folder)):
            return
        handle = backend().acquire(folder, wait=False)
    except (OSError, InputError):
        return  # a writer holds it (or no lock here): its leftovers are its own to remove
    if handle is None:
        return
    try:
        remove_stale_temps(folder)
    finally:
        backend().release(handle)


def write_all(fd: int, data: bytes | memoryview) -> None:
    """Write every byte of `data` to the descriptor (`os.write` may take part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _fsync_folder(folder: str) -> None:
    """Make the rename durable: POSIX needs the folder fsynced; Windows cannot open a
    folder as a file, and its rename is durable with the file's own flush."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def find_specs(top: str) -> list[str]:
    """Every folder under `top` holding a `.progress.md` (`walk.walk`'s folders)."""
    from mdgrill.shell.walk import walk

    return [folder for folder, _, files in walk(top) if PROGRESS in files]

"""One exclusive lock per spec folder, held for one read-check-write cycle, on each system.

POSIX: `flock` on the folder itself, so nothing is left behind. Windows cannot lock a folder
(nor open one as a file), and a lock on `.progress.md` would make every editor's save fail
while mdgrill holds it; so there the lock is a byte of a file outside the repository, in the
system's temporary folder, named by the folder's path (case-folded: Windows paths ignore
case). Both kinds go when the process that holds them dies.

The system's module is imported when a lock is first taken, never when mdgrill starts: the
read-only verbs run on any system. `MDGRILL_LOCK=posix|windows` picks one by hand, which is
how the tests run the Windows path here.
"""

from __future__ import annotations

import os
from hashlib import sha256

from mdgrill.errors import InputError

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    class Backend(Protocol):
        def acquire(self, folder: str, wait: bool) -> int | None:
            """A handle on the held lock; None when `wait` is false and another process has
            it."""

        def release(self, handle: int) -> None: ...


class Posix:
    """`flock` on the folder's own descriptor: closing it releases the lock."""

    def __init__(self) -> None:
        import fcntl

        self.fcntl: Any = fcntl

    def acquire(self, folder: str, wait: bool) -> int | None:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            self.fcntl.flock(fd, self.fcntl.LOCK_EX | (0 if wait else self.fcntl.LOCK_NB))
        except OSError:
            os.close(fd)
            if wait:
                raise
            return None
        return fd

    def release(self, handle: int) -> None:
        os.close(handle)


class Windows:
    """`msvcrt.locking` on the first byte of a file in the temporary folder, one per spec
    folder. LK_LOCK retries for about ten seconds and then fails; waiting means retrying."""

    def __init__(self) -> None:
        import msvcrt

        self.msvcrt: Any = msvcrt

    @staticmethod
    def lock_file(folder: str) -> str:
        key = os.path.normcase(os.path.realpath(folder)).lower()
        home = os.path.join(os.environ.get("TEMP") or os.environ.get("TMP") or
                            os.path.expanduser("~"), "mdgrill-locks")
        os.makedirs(home, exist_ok=True)
        return os.path.join(home, sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
                            + ".lock")

    def acquire(self, folder: str, wait: bool) -> int | None:
        if not os.path.isdir(folder):
            raise FileNotFoundError(2, "No such file or directory", folder)
        fd = os.open(self.lock_file(folder), os.O_RDWR | os.O_CREAT, 0o600)
        mode = self.msvcrt.LK_LOCK if wait else self.msvcrt.LK_NBLCK
        while True:
            os.lseek(fd, 0, os.SEEK_SET)  # the lock is on the first byte
            try:
                self.msvcrt.locking(fd, mode, 1)
                return fd
            except OSError:
                if not wait:
                    os.close(fd)
                    return None

    def release(self, handle: int) -> None:
        try:
            os.lseek(handle, 0, os.SEEK_SET)
            self.msvcrt.locking(handle, self.msvcrt.LK_UNLCK, 1)
        finally:
            os.close(handle)


_backend: Backend | None = None


def backend() -> Backend:
    """The system's lock (chosen once per process): the one `MDGRILL_LOCK` names, else
    Windows' on Windows and `flock` elsewhere, else whichever of the two the system has."""
    global _backend
    if _backend is None:
        chosen = os.environ.get("MDGRILL_LOCK") or ("windows" if os.name == "nt" else "posix")
        kinds: list[type[Posix] | type[Windows]] = \
            [Windows, Posix] if chosen == "windows" else [Posix, Windows]
        for kind in kinds:
            try:
                _backend = kind()
                return _backend
            except ImportError:
                continue
        raise InputError("LOCK_UNAVAILABLE", "this Python offers no file lock (neither "
                         "fcntl nor msvcrt), so mdgrill cannot write safely here; the "
                         "read-only verbs still work")
    return _backend
